/**
 * The two work queues and their workers. SWHs are keyed `namespace/name` and run `SWH_WORKERS` at once; nodes
 * are keyed by name and run one at a time. Workers run only during a leadership term: each run reads its facts
 * from the caches and the term, reconciles, and (for a node) hands the new reports to the term and the SWHs they
 * change to the SWH queue. `swh_reconcile_duration_seconds` times SWH runs (deploy/METRICS.md);
 * `swh_reconcile_errors_total` counts failed runs of both queues, except terminal errors (a malformed object,
 * reported in its status), which only the queue's `swh_workqueue_dropped_total` counts.
 */
import { type DroppedKey, isTerminalError, type Logger, type Worker, WorkQueue } from "@swh/kube";
import type { ControllerMetrics } from "@swh/metrics";
import type { ControllerIo, ControllerSettings } from "../controller-options.js";
import type { ControllerApi, EventRecorderLike, ReconcileIo } from "./controller-api.js";
import type { ControllerCaches } from "./informers.js";
import { type LeaderTerm, recordNodeReport } from "./leader-term.js";
import { readNodeFacts, reconcileNode } from "./reconcile-node.js";
import { readSwhFacts, reconcileSwh, reportReconcileFailure, type SwhIo } from "./reconcile-swh.js";

/**
 * SWH reconciles running at once. A reconcile mostly waits on the API server (Service write, status patch), so
 * several in flight keep a burst of new SWHs from queueing behind each other; the queue never runs one key twice.
 */
const SWH_WORKERS = 8;

/** The SWH queue and the node queue. */
export interface ControllerQueues {
  swh: WorkQueue<string>;
  node: WorkQueue<string>;
}

/** What the workers use besides the queues and the term. */
export interface WorkerEnv {
  caches: ControllerCaches;
  api: ControllerApi;
  events: EventRecorderLike;
  metrics: ControllerMetrics;
  settings: { namespace: string; nodeNotReadyGraceMs: number };
}

/**
 * Creates both queues; `onSwhDropped` is told of an SWH the queue stopped retrying. `timeoutMs` and `maxRetries`
 * default to the queue's 30 s and 15 (ADR 0022).
 */
export function createQueues(
  opts: Pick<ControllerIo, "logger" | "kubeMetrics"> &
    Pick<ControllerSettings, "reconcileTimeoutMs" | "maxRetries">,
  onSwhDropped: (dropped: DroppedKey<string>) => Promise<void>,
): ControllerQueues {
  const common = {
    metrics: opts.kubeMetrics,
    logger: opts.logger,
    ...(opts.reconcileTimeoutMs === undefined ? {} : { timeoutMs: opts.reconcileTimeoutMs }),
    ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
  };
  return {
    swh: new WorkQueue<string>({ name: "swh", ...common, onDropped: onSwhDropped }),
    node: new WorkQueue<string>({ name: "node", ...common }),
  };
}

/** Runs the workers of both queues for `term`; resolves once its signal aborted and the runs finished. */
export async function runWorkers(term: LeaderTerm, queues: ControllerQueues, env: WorkerEnv): Promise<void> {
  const { caches, metrics, settings } = env;
  const { signal } = term;
  await Promise.all([
    counted(queues.swh, { concurrency: SWH_WORKERS, signal, metrics, timed: true }, (key, ctx) =>
      reconcileSwh(readSwhFacts(key, caches, term), swhIo(term, env, ctx.logger, ctx.signal)),
    ),
    counted(queues.node, { concurrency: 1, signal, metrics, timed: false }, async (name, ctx) => {
      const facts = readNodeFacts(name, caches, term, settings);
      const outcome = await reconcileNode(facts, reconcileIo(env, ctx.logger, ctx.signal));
      recordNodeReport(term, name, outcome.report);
      for (const key of outcome.requeueSwhs) queues.swh.add(key);
      return outcome.result;
    }),
  ]);
}

/** Writes the last error of an SWH the queue dropped into its status, within `term` (ADR 0022). */
export function reportDropped(dropped: DroppedKey<string>, term: LeaderTerm, env: WorkerEnv): Promise<void> {
  const facts = readSwhFacts(dropped.key, env.caches, term);
  return reportReconcileFailure(dropped, facts, swhIo(term, env, dropped.logger, term.signal));
}

function reconcileIo(env: WorkerEnv, logger: Logger, signal: AbortSignal): ReconcileIo {
  return { api: env.api, events: env.events, metrics: env.metrics, logger, signal };
}

function swhIo(term: LeaderTerm, env: WorkerEnv, logger: Logger, signal: AbortSignal): SwhIo {
  return { ...reconcileIo(env, logger, signal), written: term.writtenStatus };
}

/** Runs `worker` over `queue` until `signal` aborts, counting failed runs and, if `timed`, timing every run. */
function counted(
  queue: WorkQueue<string>,
  opts: { concurrency: number; signal: AbortSignal; metrics: ControllerMetrics; timed: boolean },
  worker: Worker<string>,
): Promise<void> {
  const { metrics } = opts;
  return queue.run(
    async (key, ctx) => {
      const end = opts.timed ? metrics.reconcileDuration.startTimer() : () => 0;
      try {
        return await worker(key, ctx);
      } catch (err) {
        // The queue logs the failure and retries with backoff.
        if (!isTerminalError(err)) metrics.reconcileErrors.inc();
        throw err;
      } finally {
        end();
      }
    },
    { concurrency: opts.concurrency, signal: opts.signal },
  );
}
