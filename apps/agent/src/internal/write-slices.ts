/**
 * The agent's slice write: `writeSlices` of @swh/slice-writer, with every write counted in
 * `swh_slice_writes_total` (a failed apply too, before its error goes to the work queue) and a debug line.
 */
import type { Logger } from "@swh/kube";
import {
  type ApplyResult,
  type SliceApi,
  SliceWriteError,
  type WriteRequest,
  writeSlices,
} from "@swh/slice-writer";
import type { AgentMetrics } from "./agent-metrics.js";

/** What `writeCountedSlices` writes with and reports to. */
export interface WriteSlicesDeps {
  api: SliceApi;
  nodeName: string;
  metrics: AgentMetrics;
  logger: Logger;
  maxEndpointsPerSlice?: number;
}

/** Writes `request`, counting every write; returns the apply result, or undefined when nothing was written. */
export async function writeCountedSlices(
  request: WriteRequest,
  deps: WriteSlicesDeps,
): Promise<ApplyResult | undefined> {
  let result: ApplyResult | undefined;
  try {
    result = await writeSlices(request, deps);
  } catch (err) {
    if (err instanceof SliceWriteError) countWrites(err.result, deps.metrics);
    throw err;
  }
  if (result === undefined) return undefined;
  countWrites(result, deps.metrics);
  deps.logger.debug("slices written", {
    swh: `${request.swh.namespace}/${request.swh.name}`,
    attempts: result.attempts,
    written: result.written.map((s) => s.metadata?.name),
    deleted: result.deleted,
  });
  return result;
}

function countWrites(result: ApplyResult, metrics: AgentMetrics): void {
  for (const [action, byResult] of Object.entries(result.writes)) {
    for (const [outcome, count] of Object.entries(byResult)) {
      if (count === 0) continue;
      const label =
        outcome === "ok" ? "success" : outcome === "notOwned" || outcome === "error" ? "error" : "conflict";
      metrics.sliceWrites.inc({ action, result: label }, count);
    }
  }
}
