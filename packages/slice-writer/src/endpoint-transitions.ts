/**
 * Which endpoints change readiness with the next write of one SWH's slices on a node: what Events and the
 * transitions metric report. The slices as they are are read through the contract's one reader (`readSlice`).
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
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

function key(portName: string, port: number, address: string): string {
  return `${portName}\u0000${port}\u0000${address}`;
}
