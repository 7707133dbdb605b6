/**
 * What the controller does about one node's slices (SPEC §5): a deleted Node's slices go at once; a Node that
 * stays not Ready longer than the grace has its slices deleted (its agent cannot act); an agent that stops
 * renewing its heartbeat Lease while the Node is Ready is only reported — its slices stay as published
 * (fail-static), because a Ready node with a silent agent still routes traffic correctly as far as we know.
 */
import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { type Timestamp, toMillis } from "./time.js";

/** Lease duration assumed when an agent's Lease does not say. */
export const DEFAULT_AGENT_LEASE_SECONDS = 40;

/** Facts about one node. */
export interface NodeFacts {
  /** The Node, or undefined when it does not exist (deleted). */
  node: Readonly<V1Node> | undefined;
  /** The agent's heartbeat Lease for this node, or undefined when there is none. */
  lease: Readonly<V1Lease> | undefined;
  /** Whether any of our slices names this node. */
  hasSlices: boolean;
  now: Timestamp;
  notReadyGraceMs: number;
}

/** The decision for one node. `recheckAfterMs` is when the decision could change with no event. */
export interface NodeDecision {
  deleteSlices: false | "NodeDeleted" | "NodeNotReady";
  heartbeatStale: boolean;
  recheckAfterMs?: number;
}

/** Decides about one node's slices and its agent's heartbeat. Pure. */
export function planNodeCleanup(facts: NodeFacts): NodeDecision {
  if (facts.node === undefined)
    return { deleteSlices: facts.hasSlices ? "NodeDeleted" : false, heartbeatStale: false };
  const now = toMillis(facts.now) ?? 0;
  const ready = facts.node.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status !== "True") {
    const since =
      toMillis(ready?.lastTransitionTime) ?? toMillis(facts.node.metadata?.creationTimestamp) ?? now;
    const remaining = since + facts.notReadyGraceMs - now;
    if (remaining <= 0)
      return { deleteSlices: facts.hasSlices ? "NodeNotReady" : false, heartbeatStale: false };
    return { deleteSlices: false, heartbeatStale: false, recheckAfterMs: remaining };
  }
  if (!facts.hasSlices) return { deleteSlices: false, heartbeatStale: false };
  const spec = facts.lease?.spec;
  const renewed = toMillis(spec?.renewTime) ?? toMillis(spec?.acquireTime);
  if (renewed === undefined) return { deleteSlices: false, heartbeatStale: true };
  const expires = renewed + (spec?.leaseDurationSeconds ?? DEFAULT_AGENT_LEASE_SECONDS) * 1000;
  if (expires <= now) return { deleteSlices: false, heartbeatStale: true };
  return { deleteSlices: false, heartbeatStale: false, recheckAfterMs: expires - now };
}
