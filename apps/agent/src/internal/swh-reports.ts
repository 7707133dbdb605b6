/**
 * Where the reconcile of one SWH reports (`SwhReports`): the publication decision (logged on change, the
 * withheld gauge), problems with the user's objects (Warning Events, once), readiness transitions and the per-SWH
 * endpoint series. A readiness transition is one Event per changed (pod, port) on the SWH (`transitionEvent` of
 * @swh/slice-writer words it), through the rate-limited, aggregating EventRecorder (never one per probe), the
 * transitions metric and a log line.
 */
import { swhReference } from "@swh/crd-types/internal";
import type { EventRecorder, Logger } from "@swh/kube";
import { type AgentMetrics, recordEndpointCounts } from "@swh/metrics";
import { type EndpointTransition, transitionEvent } from "@swh/slice-writer";
import type { SwhRef, SwhReports } from "../reconcile-swh.js";
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

/** Records Events and metrics for `transitions` of `swh` (its endpoints on this node). */
export function recordEndpointTransitions(
  swh: SwhRef,
  transitions: readonly EndpointTransition[],
  deps: { events: Pick<EventRecorder, "record">; metrics: AgentMetrics; logger: Logger },
): void {
  const subject = swhReference(swh);
  for (const t of transitions) {
    const event = transitionEvent(t);
    deps.metrics.endpointTransitions.inc({
      namespace: swh.namespace,
      service: swh.name,
      to: t.ready ? "ready" : "not_ready",
    });
    deps.events.record(subject, event.type, event.reason, event.message);
    deps.logger.info("endpoint readiness changed", {
      swh: `${swh.namespace}/${swh.name}`,
      pod: t.pod,
      address: t.address,
      port: t.port,
      ready: t.ready,
      ...(event.notReadyReason === undefined ? {} : { reason: event.notReadyReason }),
    });
  }
}
