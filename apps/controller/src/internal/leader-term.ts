/**
 * Leadership terms (ADR 0009 decision 7, ADR 0019; run by `runLeaderTerms` of @swh/kube). Informers run in every
 * replica; workers run only during a term, and each term starts from the whole world. What a term knows beyond the
 * caches lives in its `LeaderTerm` and ends with it: a replica that leads again later starts clean, and a
 * reconcile of an ended term that still finishes writes into state nobody reads.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { WrittenObjects } from "@swh/kube";

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

/** A new term's state, for the term whose signal is `signal` (see `LeaderTerm`). */
export function newLeaderTerm(signal: AbortSignal): LeaderTerm {
  return {
    since: new Date(),
    signal,
    writtenStatus: new WrittenObjects(),
    staleNodes: new Set(),
    notReadyNodes: new Set(),
  };
}
