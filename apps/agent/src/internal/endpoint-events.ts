/**
 * Reports endpoint readiness changes: one Event per changed (pod, port) on the SWH (`transitionEvent` of
 * @swh/slice-writer words it), through the rate-limited, aggregating EventRecorder (never one per probe), the
 * transitions metric and a log line.
 */
import { swhReference } from "@swh/crd-types/internal";
import type { EventRecorder, Logger } from "@swh/kube";
import type { AgentMetrics } from "@swh/metrics";
import { type EndpointTransition, transitionEvent } from "@swh/slice-writer";
import type { SwhRef } from "../reconcile-swh.js";

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
