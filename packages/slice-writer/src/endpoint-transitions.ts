/**
 * Which endpoints change readiness with the next write of one SWH's slices on a node, and the Event that tells
 * users of each: what Events and the transitions metric report. The slices as they are are read through the
 * contract's one reader (`readSlice`).
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
import { ANNOTATION_DRAIN, DRAINED_REASON, EVENT_REASONS, type EventReason } from "@swh/crd-types";
import { readSlice } from "./read-slice.js";

/** One endpoint of one port whose `ready` condition changes with the next write. */
export interface EndpointTransition {
  pod: string;
  address: string;
  portName: string;
  port: number;
  ready: boolean;
  /** When not ready because of a probe: which probe and why. */
  failure?: { failingProbe: string; reason: string };
  /** Not ready because its pod is drained (and no probe fails). */
  drained?: true;
}

/**
 * Returns the endpoints whose `ready` condition differs between the slices as they are (`existing`, one SWH's
 * slices of this node) and as they are about to be written (`groups`). Endpoints appearing or disappearing are
 * not transitions (pods come and go); this is what Events and the transitions metric report.
 */
export function findEndpointTransitions(
  existing: readonly V1EndpointSlice[],
  groups: readonly EndpointGroup[],
): EndpointTransition[] {
  const before = new Map<string, boolean>();
  for (const slice of existing) {
    const view = readSlice(slice);
    for (const endpoint of view?.endpoints ?? []) {
      before.set(key(view?.portName ?? "", view?.port ?? 0, endpoint.address), endpoint.conditions.ready);
    }
  }
  const transitions: EndpointTransition[] = [];
  for (const group of groups) {
    for (const endpoint of group.endpoints) {
      const was = before.get(key(group.portName, group.port, endpoint.address));
      if (was === undefined || was === endpoint.conditions.ready) continue;
      const transition: EndpointTransition = {
        pod: endpoint.targetRef.name,
        address: endpoint.address,
        portName: group.portName,
        port: group.port,
        ready: endpoint.conditions.ready,
      };
      if (!endpoint.conditions.ready && endpoint.failure !== undefined) {
        transition.failure = { failingProbe: endpoint.failure.failingProbe, reason: endpoint.failure.reason };
      } else if (!endpoint.conditions.ready && endpoint.drained === true) transition.drained = true;
      transitions.push(transition);
    }
  }
  return transitions;
}

/** The Event about one transition, on the SWH, and the reason code a log line of it carries. */
export interface TransitionEvent {
  type: "Normal" | "Warning";
  reason: EventReason;
  message: string;
  /** Why the endpoint is not ready: the failing probe's reason, or `Drained`; undefined when ready. */
  notReadyReason?: string;
}

/**
 * The Event of `t`: `EndpointReady` (Normal) or `EndpointNotReady` naming the failing probe and its reason
 * (Warning), or the drain (Normal: a drain is the operator's or the app's own decision, news rather than a warning).
 */
export function transitionEvent(t: EndpointTransition): TransitionEvent {
  const port = t.portName === "" ? `${t.port}` : `${t.portName} (${t.port})`;
  const why = t.failure
    ? `: ${t.failure.failingProbe} ${t.failure.reason}`
    : t.drained
      ? ` (Drained: the pod's annotation ${ANNOTATION_DRAIN} drains it)`
      : "";
  const message = `pod ${t.pod} (${t.address}) port ${port} is ${t.ready ? "ready" : `not ready${why}`}`;
  const event: TransitionEvent = {
    type: t.ready || t.drained ? "Normal" : "Warning",
    reason: t.ready ? EVENT_REASONS.endpointReady : EVENT_REASONS.endpointNotReady,
    message,
  };
  if (t.failure) event.notReadyReason = t.failure.reason;
  else if (t.drained) event.notReadyReason = DRAINED_REASON;
  return event;
}

function key(portName: string, port: number, address: string): string {
  return `${portName}\u0000${port}\u0000${address}`;
}
