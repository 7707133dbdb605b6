/**
 * Reports endpoint readiness changes: one Event per changed (pod, port) on the SWH, through the rate-limited,
 * aggregating EventRecorder (never one per probe), and the transitions metric.
 */
import { ANNOTATION_DRAIN, API_VERSION, DRAINED_REASON, EVENT_REASONS, KIND } from "@swh/crd-types";
import type { EventRecorder, Logger } from "@swh/kube";
import type { AgentMetrics } from "@swh/metrics";
import type { EndpointTransition } from "@swh/slice-writer";
import type { SwhRef } from "../reconcile-swh.js";

/** Records Events and metrics for `transitions` of `swh` (its endpoints on this node). */
export function recordEndpointTransitions(
  swh: SwhRef,
  transitions: readonly EndpointTransition[],
  deps: { events: Pick<EventRecorder, "record">; metrics: AgentMetrics; logger: Logger },
): void {
  const subject = {
    kind: KIND,
    apiVersion: API_VERSION,
    name: swh.name,
    namespace: swh.namespace,
    uid: swh.uid ?? "",
  };
  for (const t of transitions) {
    const port = t.portName === "" ? `${t.port}` : `${t.portName} (${t.port})`;
    const why = t.failure
      ? `: ${t.failure.failingProbe} ${t.failure.reason}`
      : t.drained
        ? ` (Drained: the pod's annotation ${ANNOTATION_DRAIN} drains it)`
        : "";
    const message = `pod ${t.pod} (${t.address}) port ${port} is ${t.ready ? "ready" : `not ready${why}`}`;
    deps.metrics.endpointTransitions.inc({
      namespace: swh.namespace,
      service: swh.name,
      to: t.ready ? "ready" : "not_ready",
    });
    deps.events.record(
      subject,
      // A drain is the operator's or the app's own decision: news, not a warning.
      t.ready || t.drained ? "Normal" : "Warning",
      t.ready ? EVENT_REASONS.endpointReady : EVENT_REASONS.endpointNotReady,
      message,
    );
    deps.logger.info("endpoint readiness changed", {
      swh: `${swh.namespace}/${swh.name}`,
      pod: t.pod,
      address: t.address,
      port: t.port,
      ready: t.ready,
      ...(t.failure ? { reason: t.failure.reason } : t.drained ? { reason: DRAINED_REASON } : {}),
    });
  }
}
