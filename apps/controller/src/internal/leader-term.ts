/**
 * Leadership terms (ADR 0009 decision 7, ADR 0019). Informers run in every replica; workers run only during a
 * term, and each term starts from the whole world. What a term knows beyond the caches lives in its `LeaderTerm`
 * and ends with it: a replica that leads again later starts clean, and a reconcile of an ended term that still
 * finishes writes into state nobody reads.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { type Logger, WrittenObjects } from "@swh/kube";

/** Runs `onStartedLeading` while this process holds the leader Lease (the `@swh/kube` contract). */
export type LeaderElector = (opts: {
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading(): void;
  signal: AbortSignal;
}) => Promise<void>;

/** One leadership term: its signal and what it knows beyond the informer caches. */
export interface LeaderTerm {
  /** When the term started: before then this replica had no evidence about any heartbeat. */
  readonly since: Date;
  /** Aborted the moment leadership is lost (or the controller stops). */
  readonly signal: AbortSignal;
  /**
   * The status this term last wrote per SWH, as the object its patch produced, until the informer delivers it
   * (SWH events feed `observe`): until then the cached status is older than the stored one, and comparing with it
   * would write the same status again and repeat its Events. No time limit (there was a 30 s one): it stands only
   * while the cached SWH's resourceVersion is certainly older than ours, and while it is, it *is* the stored
   * status — this controller is the only status writer and patches with a resourceVersion precondition. Any later
   * change by anyone (a re-created SWH included) reaches the cache with a newer version and wins; a 409 on our
   * next patch, a deleted SWH and the end of the term forget it.
   */
  readonly writtenStatus: WrittenObjects<KubernetesObject>;
  /** Nodes whose agent heartbeat is stale, and NotReady nodes whose agent is alive (full names). */
  readonly staleNodes: Set<string>;
  readonly notReadyNodes: Set<string>;
}

/** What a term reports about one node (`planNodeCleanup`'s two reports; SWH status shows both). */
export interface NodeReport {
  heartbeatStale: boolean;
  notReadyAgentAlive: boolean;
}

/** Records what a node reconcile decided about `node` in `term`. */
export function recordNodeReport(term: LeaderTerm, node: string, report: NodeReport): void {
  for (const [set, on] of [
    [term.staleNodes, report.heartbeatStale],
    [term.notReadyNodes, report.notReadyAgentAlive],
  ] as const) {
    if (on) set.add(node);
    else set.delete(node);
  }
}

/**
 * Runs terms until `opts.signal` aborts and every term's work finished: without `elect` one term at once
 * (`--leader-elect=false`), else one per Lease held, each with its own signal, aborted the moment the Lease is
 * lost; after a loss this replica stays a candidate with warm caches. `start` runs a term's work; `end` clears
 * what only a leader shows (also after a term whose work is still finishing).
 */
export async function runTerms(
  elect: LeaderElector | undefined,
  opts: { signal: AbortSignal; logger: Logger },
  hooks: { start(term: LeaderTerm): Promise<void>; end(): void },
): Promise<void> {
  const { signal, logger } = opts;
  const term = (termSignal: AbortSignal): LeaderTerm => ({
    since: new Date(),
    signal: termSignal,
    writtenStatus: new WrittenObjects(),
    staleNodes: new Set(),
    notReadyNodes: new Set(),
  });
  if (elect === undefined) {
    await hooks.start(term(signal));
    hooks.end();
    return;
  }
  const running = new Set<Promise<void>>();
  await elect({
    signal,
    onStartedLeading: (termSignal) => {
      logger.info("started leading");
      const work = hooks
        .start(term(termSignal))
        .catch((err: unknown) => logger.error("workers failed", { err }));
      running.add(work);
      void work.finally(() => running.delete(work));
    },
    onStoppedLeading: () => {
      if (!signal.aborted) logger.warn("lost leadership; all work stopped");
      hooks.end();
    },
  });
  await Promise.all(running);
  hooks.end();
}
