/**
 * One reconcile of one node (key = node name): delete the slices of a deleted or long-NotReady node, and track
 * whether its agent's heartbeat is stale (status of the SWHs it publishes + `swh_agent_heartbeat_stale`).
 */
import type { V1EndpointSlice, V1Lease, V1Node } from "@kubernetes/client-node";
import { AGENT_LEASE_PREFIX } from "@swh/crd-types";
import type { Logger, WorkResult } from "@swh/kube";
import type { ControllerApi } from "./controller-api.js";
import type { ControllerMetrics } from "./controller-metrics.js";
import { planNodeCleanup } from "./plan-node-cleanup.js";
import { WRITE_TIMEOUT_MS } from "./reconcile-swh.js";
import { swhKeyOf } from "./slice-index.js";

/** What a node reconcile reads and writes. */
export interface NodeReconcileDeps {
  getNode(name: string): Readonly<V1Node> | undefined;
  getLease(name: string): Readonly<V1Lease> | undefined;
  slicesOnNode(node: string): readonly Readonly<V1EndpointSlice>[];
  /** The set of nodes currently reported stale; this reconcile updates it. */
  staleNodes: Set<string>;
  /** Asks for a reconcile of the SWH `namespace/name` (its status depends on the stale set). */
  enqueueSwh(key: string): void;
  api: ControllerApi;
  metrics: ControllerMetrics;
  logger: Logger;
  now(): Date;
  notReadyGraceMs: number;
  /** The leadership term's signal: aborted the moment this replica stops leading; every delete carries it. */
  signal: AbortSignal;
}

/** Reconciles node `name`; returns when to look again if time alone can change the decision. */
export async function reconcileNode(name: string, deps: NodeReconcileDeps): Promise<WorkResult> {
  const node = deps.getNode(name);
  const slices = deps.slicesOnNode(name);
  const decision = planNodeCleanup({
    node,
    lease: deps.getLease(`${AGENT_LEASE_PREFIX}${name}`),
    hasSlices: slices.length > 0,
    now: deps.now(),
    notReadyGraceMs: deps.notReadyGraceMs,
  });

  const wasStale = deps.staleNodes.has(name);
  if (decision.heartbeatStale) deps.staleNodes.add(name);
  else deps.staleNodes.delete(name);
  if (node === undefined) deps.metrics.heartbeatStale.remove({ node: name });
  else deps.metrics.heartbeatStale.set({ node: name }, decision.heartbeatStale ? 1 : 0);
  if (wasStale !== decision.heartbeatStale) {
    deps.logger.warn(
      decision.heartbeatStale ? "agent heartbeat stale; keeping its slices" : "agent heartbeat fresh again",
      { node: name },
    );
    for (const key of new Set(slices.map(swhKeyOf))) deps.enqueueSwh(key);
  }

  if (decision.deleteSlices !== false) {
    deps.logger.info("deleting the slices of a node", {
      node: name,
      why: decision.deleteSlices,
      slices: slices.length,
    });
    for (const slice of slices) {
      await deps.api.deleteSlice(
        slice.metadata?.namespace ?? "",
        slice.metadata?.name ?? "",
        slice.metadata?.uid,
        AbortSignal.any([deps.signal, AbortSignal.timeout(WRITE_TIMEOUT_MS)]),
      );
    }
  }
  return decision.recheckAfterMs === undefined
    ? undefined
    : { requeueAfterMs: decision.recheckAfterMs + 1_000 };
}
