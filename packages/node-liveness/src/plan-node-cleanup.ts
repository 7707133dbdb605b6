/**
 * What the controller does about one node's slices (SPEC §5, ADR 0009 and 0013). Deleting slices withdraws
 * endpoints, so every path to a delete needs proof, and every doubt keeps the slices (fail-static):
 * - a Node the cache no longer has is deleted only once a live GET answers 404 — an informer in backoff or a
 *   cache that missed an event is not proof; any other outcome of the GET keeps the slices and looks again later;
 * - a Node that stays not Ready longer than the grace has its slices deleted only when its agent cannot act,
 *   i.e. its heartbeat Lease is not fresh; while the agent renews it, the agent keeps probing and publishing, so
 *   its slices stay and the state is reported instead;
 * - an agent that stops renewing its heartbeat while the Node is Ready is only reported: a Ready node with a
 *   silent agent still routes traffic correctly as far as we know. A heartbeat that was never seen counts as
 *   stale only once the agent had a whole Lease duration to write it since `heartbeatDueSince` (issue 21): an
 *   agent writes its first slice and its first heartbeat at about the same time, and a controller that has just
 *   started leading has no evidence yet either — a report before that is a false alarm.
 * Pure: the live GET is done by the caller and passed in as `live`.
 */
import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { type Timestamp, toMillis } from "@swh/crd-types/internal";
import { agentLeaseNode } from "./agent-lease-name.js";

/** Lease duration assumed when an agent's Lease does not say. */
export const DEFAULT_AGENT_LEASE_SECONDS = 40;
/** How soon a node is looked at again after a live GET that neither found the Node nor answered 404. */
export const LIVE_GET_RETRY_MS = 10_000;

/** Outcome of a live GET of the Node: found, a 404, or anything else (an error, a timeout). */
export type LiveNode =
  | { outcome: "Found"; node: Readonly<V1Node> }
  | { outcome: "NotFound" }
  | { outcome: "Failed"; message: string };

/** Facts about one node. */
export interface NodeFacts {
  /** The Node in the informer cache, or undefined when the cache does not have it. */
  node: Readonly<V1Node> | undefined;
  /** The result of a live GET of the Node, once the caller made one (see `NodeDecision.confirmWithLiveGet`). */
  live?: LiveNode;
  /** The agent's heartbeat Lease for this node, or undefined when there is none. */
  lease: Readonly<V1Lease> | undefined;
  /** Whether any of our slices names this node. */
  hasSlices: boolean;
  /**
   * Since when this node's agent must have a heartbeat: the later of this replica's start of leading and the
   * node's oldest slice. Undefined = long ago (a missing heartbeat is stale at once).
   */
  heartbeatDueSince?: Timestamp;
  /**
   * When the node's newest slice was created. Only its agent writes it, so a slice created after the heartbeat
   * expired proves the agent was alive then (it restarted, e.g. after a reboot, and renews its Lease about as it
   * writes): such an agent gets a Lease duration from that write before its old Lease counts as stale.
   */
  newestSliceCreated?: Timestamp | undefined;
  now: Timestamp;
  notReadyGraceMs: number;
}

/** The decision for one node. `recheckAfterMs` is when the decision could change with no event. */
export interface NodeDecision {
  deleteSlices: false | "NodeDeleted" | "NodeNotReady";
  /** The cache says the Node is gone and it has slices: GET it live and decide again with `live`. */
  confirmWithLiveGet?: true;
  /** The Node is Ready but its agent's heartbeat is missing or expired: reported, slices kept. */
  heartbeatStale: boolean;
  /** The Node is not Ready beyond the grace but its agent's heartbeat is fresh: reported, slices kept. */
  notReadyAgentAlive: boolean;
  recheckAfterMs?: number;
}

/** What the controller's caches hold about one node, and when: the input of `nodeCleanupFacts`. */
export interface NodeObjects {
  /** The node's full name. */
  name: string;
  /** The Node in the informer cache, or undefined when the cache does not have it. */
  node: Readonly<V1Node> | undefined;
  /** The Lease named after the node's heartbeat (`agentLeaseName`), whoever holds it. */
  lease: Readonly<V1Lease> | undefined;
  /** The creation time of each of our slices that name this node. */
  sliceCreated: readonly (Timestamp | undefined)[];
  /** When this replica started leading: before then it had no evidence about any heartbeat. */
  leadingSince: Timestamp;
  now: Timestamp;
  notReadyGraceMs: number;
}

/**
 * The facts `planNodeCleanup` decides on, from what the caches hold: the Lease counts only when it names this node
 * as its holder (a hash collision or a hand edit is not this node's heartbeat); the heartbeat is due since the
 * later of the start of leading and the oldest slice (its agent's first write, made at about the time of its first
 * heartbeat); the newest slice is the agent's latest proof of life.
 */
export function nodeCleanupFacts(objects: NodeObjects): NodeFacts {
  const created = objects.sliceCreated.map((t) => toMillis(t)).filter((ms): ms is number => ms !== undefined);
  const { lease } = objects;
  const leadingSince = toMillis(objects.leadingSince) ?? 0;
  return {
    node: objects.node,
    lease: lease !== undefined && agentLeaseNode(lease) === objects.name ? lease : undefined,
    hasSlices: objects.sliceCreated.length > 0,
    heartbeatDueSince: new Date(Math.max(leadingSince, created.length === 0 ? 0 : Math.min(...created))),
    newestSliceCreated: created.length === 0 ? undefined : new Date(Math.max(...created)),
    now: objects.now,
    notReadyGraceMs: objects.notReadyGraceMs,
  };
}

const KEEP: NodeDecision = { deleteSlices: false, heartbeatStale: false, notReadyAgentAlive: false };

/** Decides about one node's slices and its agent's heartbeat. Pure. */
export function planNodeCleanup(facts: NodeFacts): NodeDecision {
  const now = toMillis(facts.now) ?? 0;
  const node = facts.node ?? (facts.live?.outcome === "Found" ? facts.live.node : undefined);
  if (node === undefined) {
    if (!facts.hasSlices) return KEEP;
    if (facts.live === undefined) return { ...KEEP, confirmWithLiveGet: true };
    if (facts.live.outcome === "NotFound") return { ...KEEP, deleteSlices: "NodeDeleted" };
    return { ...KEEP, recheckAfterMs: LIVE_GET_RETRY_MS };
  }
  const expires = leaseExpiry(facts.lease);
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status !== "True") {
    const since = toMillis(ready?.lastTransitionTime) ?? toMillis(node.metadata?.creationTimestamp) ?? now;
    const remaining = since + facts.notReadyGraceMs - now;
    if (remaining > 0) return { ...KEEP, recheckAfterMs: remaining };
    if (!facts.hasSlices) return KEEP;
    if (expires !== undefined && expires > now)
      return { ...KEEP, notReadyAgentAlive: true, recheckAfterMs: expires - now };
    return { ...KEEP, deleteSlices: "NodeNotReady" };
  }
  if (!facts.hasSlices) return KEEP;
  if (expires === undefined) {
    const due = toMillis(facts.heartbeatDueSince);
    const remaining = due === undefined ? 0 : due + DEFAULT_AGENT_LEASE_SECONDS * 1000 - now;
    return remaining > 0 ? { ...KEEP, recheckAfterMs: remaining } : { ...KEEP, heartbeatStale: true };
  }
  if (expires <= now) {
    const written = toMillis(facts.newestSliceCreated);
    const remaining =
      written !== undefined && written > expires ? written + DEFAULT_AGENT_LEASE_SECONDS * 1000 - now : 0;
    return remaining > 0 ? { ...KEEP, recheckAfterMs: remaining } : { ...KEEP, heartbeatStale: true };
  }
  return { ...KEEP, recheckAfterMs: expires - now };
}

/** When the heartbeat `lease` stops counting (ms since the epoch); undefined when it was never renewed. */
function leaseExpiry(lease: Readonly<V1Lease> | undefined): number | undefined {
  const spec = lease?.spec;
  const renewed = toMillis(spec?.renewTime) ?? toMillis(spec?.acquireTime);
  if (renewed === undefined) return undefined;
  return renewed + (spec?.leaseDurationSeconds ?? DEFAULT_AGENT_LEASE_SECONDS) * 1000;
}
