/**
 * Writes one SWH's slices of this node: plan (the slice writer, which also writes the node and reasons
 * annotations), then apply, re-planning against freshly listed slices on a stale view. Counts every write in `swh_slice_writes_total`; a failed apply
 * throws so the work queue retries the SWH with backoff.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { Logger } from "@swh/kube";
import {
  type ApplyResult,
  applySlicePlan,
  planSlices,
  type SliceApi,
  type SlicePlan,
  type WriteRequest,
} from "@swh/slice-writer";
import type { AgentMetrics } from "./agent-metrics.js";

export interface WriteSlicesDeps {
  api: SliceApi;
  nodeName: string;
  metrics: AgentMetrics;
  logger: Logger;
  maxEndpointsPerSlice?: number;
}

/** Error thrown when the API server did not take a plan; the work queue retries. */
export class SliceWriteError extends Error {
  override readonly name = "SliceWriteError";
}

/** Plans and applies `request`; returns the apply result, or undefined when nothing had to be written. */
export async function writeSlices(
  request: WriteRequest,
  deps: WriteSlicesDeps,
): Promise<ApplyResult | undefined> {
  const { swh, groups } = request;
  const plan = (existing: readonly V1EndpointSlice[]): SlicePlan =>
    planSlices({
      swh: { name: swh.name, namespace: swh.namespace, uid: swh.uid },
      nodeName: deps.nodeName,
      groups,
      existing,
      serviceLabels: request.serviceLabels,
      ...(deps.maxEndpointsPerSlice === undefined ? {} : { maxEndpointsPerSlice: deps.maxEndpointsPerSlice }),
    });
  const first = plan(request.existing);
  if (first.create.length + first.update.length + first.delete.length === 0) return undefined;
  const result = await applySlicePlan(deps.api, first, {
    namespace: swh.namespace,
    nodeName: deps.nodeName,
    swhName: swh.name,
    replan: plan,
  });
  for (const [action, byResult] of Object.entries(result.writes)) {
    for (const [outcome, count] of Object.entries(byResult)) {
      if (count === 0) continue;
      const label =
        outcome === "ok" ? "success" : outcome === "notOwned" || outcome === "error" ? "error" : "conflict";
      deps.metrics.sliceWrites.inc({ action, result: label }, count);
    }
  }
  if (!result.ok) {
    throw new SliceWriteError(
      `writing slices of ${swh.namespace}/${swh.name} failed: ${result.error?.action ?? "?"} ${result.error?.name ?? ""}: ${result.error?.message ?? "unknown error"}`,
    );
  }
  deps.logger.debug("slices written", {
    swh: `${swh.namespace}/${swh.name}`,
    attempts: result.attempts,
    written: result.written.map((s) => s.metadata?.name),
    deleted: result.deleted,
  });
  return result;
}
