/**
 * One reconcile of one node (key = the node's full name): delete the slices of a deleted (confirmed by a live
 * GET) or long-NotReady node whose agent is silent, and track what is reported about it — a stale agent heartbeat
 * on a Ready node, or a NotReady node whose agent is alive (SWH status, `swh_agent_heartbeat_stale`,
 * `swh_node_not_ready_agent_alive`, an Event on the Node). The decision itself is `planNodeCleanup` (pure).
 */
import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { EVENT_REASONS, toMillis } from "@swh/crd-types";
import { describeApiError, type Logger, type WorkResult } from "@swh/kube";
import {
  agentLeaseName,
  agentLeaseNode,
  type IndexedSlice,
  type LiveNode,
  planNodeCleanup,
} from "@swh/slice-writer";
import { type ControllerApi, termWriteSignal } from "./controller-api.js";
import type { ControllerMetrics } from "./controller-metrics.js";
import type { EventRecorderLike } from "./reconcile-swh.js";

/** What a node reconcile reads and writes. */
export interface NodeReconcileDeps {
  getNode(name: string): Readonly<V1Node> | undefined;
  /** The Lease `name` in the install namespace, from the cache. */
  getLease(name: string): Readonly<V1Lease> | undefined;
  slicesOnNode(node: string): readonly IndexedSlice[];
  /** The set of nodes currently reported stale; this reconcile updates it. */
  staleNodes: Set<string>;
  /** The set of NotReady nodes whose slices are kept because their agent is alive; this reconcile updates it. */
  notReadyNodes: Set<string>;
  /** Asks for a reconcile of the SWH `namespace/name` (its status depends on the two sets). */
  enqueueSwh(key: string): void;
  api: ControllerApi;
  events: EventRecorderLike;
  metrics: ControllerMetrics;
  logger: Logger;
  now(): Date;
  /** When this replica started leading: before then it had no evidence about any heartbeat. */
  leadingSince: Date;
  notReadyGraceMs: number;
  /**
   * Aborted the moment this replica stops leading or the run exceeds its deadline (the queue's, ADR 0022); every
   * delete carries it.
   */
  signal: AbortSignal;
}

/** Reconciles node `name`; returns when to look again if time alone can change the decision. */
export async function reconcileNode(name: string, deps: NodeReconcileDeps): Promise<WorkResult> {
  let node = deps.getNode(name);
  const slices = deps.slicesOnNode(name);
  const cached = deps.getLease(agentLeaseName(name));
  const facts = {
    node,
    // A Lease whose holder is another node (a hash collision, a hand edit) is not this node's heartbeat.
    lease: cached !== undefined && agentLeaseNode(cached) === name ? cached : undefined,
    hasSlices: slices.length > 0,
    heartbeatDueSince: heartbeatDueSince(deps.leadingSince, slices),
    newestSliceCreated: newestSliceCreated(slices),
    now: deps.now(),
    notReadyGraceMs: deps.notReadyGraceMs,
  };
  let decision = planNodeCleanup(facts);
  if (decision.confirmWithLiveGet) {
    const live = await readLive(name, deps.api);
    if (live.outcome === "Found") node = live.node;
    if (live.outcome === "Failed")
      deps.logger.warn("could not confirm that a Node is gone; keeping its slices", {
        node: name,
        err: live.message,
      });
    decision = planNodeCleanup({ ...facts, live });
  }

  const swhKeys = () => new Set(slices.map((s) => s.swhKey));
  const wasStale = deps.staleNodes.has(name);
  if (decision.heartbeatStale) deps.staleNodes.add(name);
  else deps.staleNodes.delete(name);
  const wasNotReady = deps.notReadyNodes.has(name);
  if (decision.notReadyAgentAlive) deps.notReadyNodes.add(name);
  else deps.notReadyNodes.delete(name);
  if (node === undefined) {
    deps.metrics.heartbeatStale.remove({ node: name });
    deps.metrics.notReadyAgentAlive.remove({ node: name });
  } else {
    deps.metrics.heartbeatStale.set({ node: name }, decision.heartbeatStale ? 1 : 0);
    deps.metrics.notReadyAgentAlive.set({ node: name }, decision.notReadyAgentAlive ? 1 : 0);
  }
  if (wasStale !== decision.heartbeatStale) {
    deps.logger.warn(
      decision.heartbeatStale ? "agent heartbeat stale; keeping its slices" : "agent heartbeat fresh again",
      { node: name },
    );
    for (const key of swhKeys()) deps.enqueueSwh(key);
  }
  if (wasNotReady !== decision.notReadyAgentAlive) {
    if (decision.notReadyAgentAlive && node !== undefined) {
      const message =
        "Node is NotReady beyond the grace but its agent renews its heartbeat: its slices are kept";
      deps.logger.warn(message, { node: name });
      deps.events.record(
        { apiVersion: "v1", kind: "Node", name, namespace: "", uid: node.metadata?.uid ?? "" },
        "Warning",
        EVENT_REASONS.nodeNotReadyAgentAlive,
        message,
      );
    }
    for (const key of swhKeys()) deps.enqueueSwh(key);
  }

  if (decision.deleteSlices !== false) {
    deps.logger.info("deleting the slices of a node", {
      node: name,
      why: decision.deleteSlices,
      slices: slices.length,
    });
    for (const { slice } of slices) {
      await deps.api.deleteSlice(
        slice.metadata?.namespace ?? "",
        slice.metadata?.name ?? "",
        slice.metadata?.uid,
        termWriteSignal(deps.signal),
      );
    }
  }
  return decision.recheckAfterMs === undefined
    ? undefined
    : { requeueAfterMs: decision.recheckAfterMs + 1_000 };
}

/**
 * The later of `leadingSince` and the creation of the node's oldest slice: its agent's first write, which it makes
 * at about the time of its first heartbeat.
 */
function heartbeatDueSince(leadingSince: Date, slices: readonly IndexedSlice[]): Date {
  const created = sliceCreationTimes(slices);
  const firstSlice = created.length === 0 ? undefined : Math.min(...created);
  return new Date(Math.max(leadingSince.getTime(), firstSlice ?? 0));
}

/** GETs the Node from the API server; a 404 is the only `NotFound`, any other failure is `Failed`. */
async function readLive(name: string, api: ControllerApi): Promise<LiveNode> {
  try {
    const node = await api.readNode(name);
    return node === undefined ? { outcome: "NotFound" } : { outcome: "Found", node };
  } catch (err) {
    return { outcome: "Failed", message: describeApiError(err) };
  }
}

/** The creation times (ms since the epoch) of `slices`, where they have one. */
function sliceCreationTimes(slices: readonly IndexedSlice[]): number[] {
  return slices
    .map(({ slice }) => toMillis(slice.metadata?.creationTimestamp))
    .filter((ms): ms is number => ms !== undefined);
}

/** When the newest of `slices` was created (undefined: none says). */
function newestSliceCreated(slices: readonly IndexedSlice[]): Date | undefined {
  const created = sliceCreationTimes(slices);
  return created.length === 0 ? undefined : new Date(Math.max(...created));
}
