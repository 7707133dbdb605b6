/**
 * Writes one SWH's slices of one node: plan (`planSlices`, which also writes the node and reasons annotations),
 * then apply (`applySlicePlan`), re-planning against freshly listed slices on a stale view. Nothing is sent when
 * the plan is empty; a plan the API server did not take throws, so the caller's work queue retries with backoff.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
import { type ApplyResult, applySlicePlan, type SliceApi } from "./apply-slice-plan.js";
import { planSlices, type SlicePlan } from "./plan-slices.js";
import type { ServiceLabels } from "./slice-labels.js";

/** What one write makes true for one SWH on one node: exactly `groups` in its slices, starting from `existing`. */
export interface WriteRequest {
  swh: { namespace: string; name: string; uid: string };
  groups: readonly EndpointGroup[];
  existing: readonly V1EndpointSlice[];
  serviceLabels: ServiceLabels;
}

/** Error thrown when the API server did not take a plan; the result says what was written before. */
export class SliceWriteError extends Error {
  override readonly name = "SliceWriteError";
  /** What the apply did, for metrics: every write is counted, the failed one too. */
  readonly result: ApplyResult;
  constructor(message: string, result: ApplyResult) {
    super(message);
    this.result = result;
  }
}

/** Where and how `writeSlices` writes. */
export interface WriteSlicesOptions {
  api: SliceApi;
  nodeName: string;
  maxEndpointsPerSlice?: number;
}

/** Plans and applies `request`; returns the apply result, or undefined when nothing had to be written. */
export async function writeSlices(
  request: WriteRequest,
  opts: WriteSlicesOptions,
): Promise<ApplyResult | undefined> {
  const { swh, groups } = request;
  const plan = (existing: readonly V1EndpointSlice[]): SlicePlan =>
    planSlices({
      swh: { name: swh.name, namespace: swh.namespace, uid: swh.uid },
      nodeName: opts.nodeName,
      groups,
      existing,
      serviceLabels: request.serviceLabels,
      ...(opts.maxEndpointsPerSlice === undefined ? {} : { maxEndpointsPerSlice: opts.maxEndpointsPerSlice }),
    });
  const first = plan(request.existing);
  if (first.create.length + first.update.length + first.delete.length === 0) return undefined;
  const result = await applySlicePlan(opts.api, first, {
    namespace: swh.namespace,
    nodeName: opts.nodeName,
    swhName: swh.name,
    replan: plan,
  });
  if (!result.ok) {
    throw new SliceWriteError(
      `writing slices of ${swh.namespace}/${swh.name} failed: ${result.error?.action ?? "?"} ${result.error?.name ?? ""}: ${result.error?.message ?? "unknown error"}`,
      result,
    );
  }
  return result;
}
