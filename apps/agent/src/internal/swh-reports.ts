/**
 * Where the reconcile of one SWH reports (`SwhReports`): the publication decision (logged on change, the
 * withheld gauge), problems with the user's objects (Warning Events, once), readiness transitions (Events and the
 * transitions counter) and the per-SWH endpoint series.
 */
import type { EventRecorder, Logger } from "@swh/kube";
import { type AgentMetrics, recordEndpointCounts } from "@swh/metrics";
import type { SwhReports } from "../reconcile-swh.js";
import { recordEndpointTransitions } from "./endpoint-events.js";
import type { ObjectProblems } from "./object-problems.js";
import { PublicationLog } from "./publication-log.js";

/** Logs, Events and metrics of the SWH reconciles (see the file comment). */
export function agentSwhReports(
  problems: ObjectProblems,
  out: { events: Pick<EventRecorder, "record">; metrics: AgentMetrics; logger: Logger },
): SwhReports {
  const publications = new PublicationLog(out.logger, out.metrics.endpointsWithheld);
  return {
    publication: (ref, publication) => publications.record(ref, publication),
    unusableSpec: (ref, unusable) => problems.unusablePublishedSpec(ref, unusable),
    transitions: (swh, transitions) => recordEndpointTransitions(swh, transitions, out),
    endpoints: (ref, counts) => recordEndpointCounts(out.metrics, ref, counts),
    issues: (swh, issues) => problems.probeIssues(swh, issues),
    unprocessable: (swh, error) => problems.unprocessableSwh(swh, swh.spec, error),
  };
}
