/**
 * What the controller decides over every slice of an SWH and publishes with its spec on the Service (ADR 0032),
 * for each agent to apply to its node's endpoints: whether endpoints may carry zone hints (ADR 0035,
 * `publishedZoneHints`) and which ports fail open (ADR 0039, `failOpenVerdict`). Pure.
 */
import type { ServiceWithHealthchecksSpec } from "@swh/crd-types";
import type { PublishedVerdicts } from "@swh/crd-types/internal";
import { failOpenVerdict, type JudgedEndpoint } from "./fail-open.js";
import { type EndpointPlace, publishedZoneHints } from "./topology-hints.js";

/** One slice of the SWH as the verdicts read it (`SliceView` of @swh/slice-writer fits). */
export interface VerdictSlice {
  portName: string;
  endpoints: readonly (JudgedEndpoint & EndpointPlace)[];
}

/** The verdicts for an SWH with `spec` over all of its `slices`, across the cluster. */
export function publishedVerdicts(
  spec: Readonly<Pick<ServiceWithHealthchecksSpec, "trafficDistribution" | "healthcheck">>,
  slices: readonly VerdictSlice[],
): PublishedVerdicts {
  return {
    zoneHints: publishedZoneHints(
      spec.trafficDistribution,
      slices.flatMap((s) => s.endpoints),
    ),
    failOpen: failOpenVerdict(spec.healthcheck?.failOpen, slices).map((p) => p.portName),
  };
}
