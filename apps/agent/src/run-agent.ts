/**
 * The agent, composed: ops servers → informers (the node's pods, slices, Node, managed Services, credentials
 * Secrets) → the node view they feed → probing (scheduler + results) and the targets pass → the work loop
 * (targets passes and per-SWH reconciles, `internal/publication.ts`) → the heartbeat Lease. Each part is a file
 * of `internal/`; this one connects them and owns start-up order and shutdown. `main` and the integration tests
 * (in-process) run it.
 */
import { CoreV1Api, DiscoveryV1Api, type KubeConfig } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";
import {
  allHaveSynced,
  allSynced,
  createJsonClient,
  createKubeMetrics,
  createMetricsRegistry,
  EventRecorder,
  type KubeMetrics,
  type Logger,
  type MetricsAccess,
  runHeartbeat,
  startOpsServers,
  WorkQueue,
} from "@swh/kube";
import { type AgentMetrics, createAgentMetrics } from "@swh/metrics";
import { agentLeaseName } from "@swh/node-liveness";
import type { Registry } from "prom-client";
import type { AgentConfig } from "./config.js";
import { startCredentialsSecrets } from "./internal/credentials-secrets.js";
import { enqueueOnChanges, TARGETS } from "./internal/event-handlers.js";
import { startAgentInformers } from "./internal/informers.js";
import { NodeView } from "./internal/node-view.js";
import { ObjectProblems } from "./internal/object-problems.js";
import { OwnSlices } from "./internal/own-slices.js";
import { Probing } from "./internal/probing.js";
import { runPublication } from "./internal/publication.js";
import { fetchService, PublishedSwhs } from "./internal/published-swhs.js";
import { ReadinessGates } from "./internal/readiness-gates.js";
import { agentSwhReports } from "./internal/swh-reports.js";
import { TargetPlanning } from "./internal/target-planning.js";
import { APP_VERSION } from "./version.js";

/**
 * Options of `runAgent`: the node, its namespace and the parsed flags (`AgentConfig`, whose fields say what each
 * is), plus what tests inject or shorten. The defaults are the production values.
 */
export interface RunAgentOptions
  extends Pick<AgentConfig, "nodeName">,
    Partial<
      Pick<
        AgentConfig,
        | "namespace"
        | "maxConcurrentProbes"
        | "credentialsNamespaces"
        | "metricsBindAddress"
        | "metricsTls"
        | "healthBindAddress"
      >
    > {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Registry for /metrics; a new one with process metrics by default. */
  registry?: Registry;
  /** How long a probe change waits for others to join it in one write. Default 5 ms. */
  coalesceMs?: number;
  /** Heartbeat renewal period; default 10 s. */
  heartbeatIntervalMs?: number;
  /** Heartbeat Lease duration; default 40 s. */
  leaseDurationSeconds?: number;
  /** Who may read /metrics; default: the API server's TokenReview + SubjectAccessReview, cached briefly. */
  metricsAccess?: MetricsAccess;
  /** SWHs reconciled at the same time. Default 4. */
  workers?: number;
  /** Informer re-list period (tests shorten it). */
  resyncMs?: number;
}

/** A running agent. */
export interface RunningAgent {
  readonly registry: Registry;
  /** Bound ports of the ops servers (0 ports resolved). */
  readonly ports: { metrics?: number; health?: number };
  /** True once every informer has synced and probing has started from the published state. */
  ready(): boolean;
  /** Stops watching, probing and writing; leaves every slice as it is (SPEC §3.6). */
  stop(): Promise<void>;
}

// Short on purpose: reaction time to a probe verdict is this plus one write. Changes arriving together still
// share a write, because the delay starts at the first change and the queue holds each SWH key once.
const DEFAULT_COALESCE_MS = 5;

/** Starts the agent and resolves once it has synced and started probing (see `RunningAgent`). */
export async function runAgent(opts: RunAgentOptions): Promise<RunningAgent> {
  const log = opts.logger.child({ node: opts.nodeName });
  const stopper = new AbortController();
  const registry = opts.registry ?? createMetricsRegistry();
  const kubeMetrics = createKubeMetrics(registry);
  // Declared before the metrics read it: /metrics may be scraped before probing starts.
  let probing: Probing | undefined;
  const metrics = createAgentMetrics(registry, APP_VERSION, () => probing?.slots());
  let ready = () => false;
  const ops = await startOpsServers({ ...opts, commonName: "swh-agent" }, registry, () => ready(), log);
  const node = watchNode(opts, { log, kubeMetrics, metrics, signal: stopper.signal });
  const running: Promise<void>[] = [];
  const stop = async () => {
    if (stopper.signal.aborted) return;
    log.info("agent stopping; slices are left as they are");
    stopper.abort();
    probing?.stop();
    node.queue.clearDelayed();
    await Promise.allSettled(running);
    await node.events.flush().catch(() => {});
    await ops.close();
  };
  try {
    await Promise.all([allSynced(Object.values(node.informers)), node.credentials.settled()]);
  } catch (err) {
    await stop();
    throw err;
  }
  probing = startProbing(opts, node, { log, metrics, signal: stopper.signal });
  const view = new NodeView({ ...node, nodeName: opts.nodeName, states: () => probing.states() });
  const planning = new TargetPlanning(view, probing, node.problems);
  const seededPassing = planning.run();
  log.info("agent started", {
    targets: probing.targetCount(),
    seededPassing,
    slices: node.informers.slices.list().length,
  });
  const reports = agentSwhReports(node.problems, { events: node.events, metrics, logger: log });
  const writes = { slices: node.slices, gates: node.gates };
  const parts = { view, planning, published: node.published, writes, reports };
  running.push(runPublication(node.queue, parts, { workers: opts.workers ?? 4, signal: stopper.signal }));
  if (opts.namespace) running.push(heartbeat(opts, opts.namespace, log, stopper.signal));
  ready = () =>
    !stopper.signal.aborted && allHaveSynced(Object.values(node.informers)) && node.credentials.hasSettled();
  return { registry, ports: ops.ports, ready: () => ready(), stop };
}

/** What the agent watches and keeps about its node, started before anything reads it. */
type WatchedNode = ReturnType<typeof watchNode>;

/**
 * Starts the informers and the credentials Secret caches, and the objects that read them: the node's own slices
 * (read-your-writes), the SWHs published on Services, problem reporting, and the work queue their changes feed.
 */
function watchNode(
  opts: RunAgentOptions,
  deps: { log: Logger; kubeMetrics: KubeMetrics; metrics: AgentMetrics; signal: AbortSignal },
) {
  const { kubeConfig, nodeName } = opts;
  const { log, signal } = deps;
  const resync = opts.resyncMs === undefined ? {} : { resyncMs: opts.resyncMs };
  const common = { kubeConfig, logger: log, metrics: deps.kubeMetrics, signal, ...resync };
  const informers = startAgentInformers({ ...common, nodeName });
  const credentials = startCredentialsSecrets({ ...common, namespaces: opts.credentialsNamespaces ?? [] });
  const events = new EventRecorder({
    component: "network.deckhouse.io/swh-agent",
    instance: nodeName,
    kubeConfig,
    logger: log,
    metrics: deps.kubeMetrics,
  });
  // One malformed object never stops the others (ADR 0015): it is skipped per object and reported here.
  const problems = new ObjectProblems({ events, logger: log, nodeName });
  const queue = new WorkQueue<string>({
    name: "servicewithhealthchecks",
    metrics: deps.kubeMetrics,
    logger: log,
  });
  const sliceApi = kubeConfig.makeApiClient(DiscoveryV1Api);
  const slices = new OwnSlices({
    informer: informers.slices,
    api: sliceApi,
    nodeName,
    metrics: deps.metrics,
  });
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const published = new PublishedSwhs({
    services: informers.services,
    fetch: (namespace, name) => fetchService(core, namespace, name),
    hasSlices: (namespace, name) => slices.of(namespace, name).length > 0,
    changed: () => queue.add(TARGETS),
  });
  const gates = new ReadinessGates(createJsonClient(kubeConfig), deps.metrics);
  enqueueOnChanges(informers, queue, { published, slices, gates });
  return { informers, credentials, events, problems, queue, slices, published, gates };
}

/** The probe scheduler; a changed result re-reconciles the SWHs gating on it, after the coalescing delay. */
function startProbing(
  opts: RunAgentOptions,
  node: WatchedNode,
  deps: { log: Logger; metrics: AgentMetrics; signal: AbortSignal },
): Probing {
  const coalesceMs = opts.coalesceMs ?? DEFAULT_COALESCE_MS;
  return new Probing({
    maxConcurrent: opts.maxConcurrentProbes ?? 100,
    credentials: node.credentials,
    metrics: deps.metrics,
    logger: deps.log,
    signal: deps.signal,
    changed: (user) => {
      const key = objectKey(user);
      node.queue.addAfter(key, Math.max(coalesceMs, node.slices.delayMs(key)));
    },
  });
}

/** Renews this node's heartbeat Lease until `signal` aborts (ADR 0013: named after the node, holding its full name). */
function heartbeat(
  opts: RunAgentOptions,
  namespace: string,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  return runHeartbeat({
    kubeConfig: opts.kubeConfig,
    namespace,
    name: agentLeaseName(opts.nodeName),
    holderIdentity: opts.nodeName,
    intervalMs: opts.heartbeatIntervalMs ?? 10_000,
    leaseDurationSeconds: opts.leaseDurationSeconds ?? 40,
    logger: log,
    signal,
  });
}
