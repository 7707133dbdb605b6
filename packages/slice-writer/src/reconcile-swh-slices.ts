/**
 * The agent's reconcile of one ServiceWithHealthchecks on its node, level-based: read the current SWH, pods, probe
 * states and owned slices; aggregate; write the difference. Everything it reads and writes is injected, so the
 * decision path is tested without an API server and the I/O lives in the slice writer.
 */
import type { KubernetesObject, V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import {
  type Aggregation,
  type AggregationIssue,
  aggregateEndpoints,
  type EndpointGroup,
  type PodInfo,
  type ProbeStates,
  type SwhInput,
  type SwhObject,
  swhInputFromObject,
} from "@swh/aggregation";
import { endpointPublication, type Publication } from "@swh/crd-types";
import { TerminalError } from "@swh/kube";
import { type EndpointTransition, findEndpointTransitions } from "./endpoint-transitions.js";
import type { ServiceLabels } from "./slice-labels.js";

/** An SWH as the agent's informer holds it. */
export type SwhSlicesObject = KubernetesObject & SwhObject;

/** What the slice writer is asked to make true for one SWH on this node. */
export interface WriteRequest {
  swh: SwhInput & { uid: string };
  groups: EndpointGroup[];
  existing: readonly V1EndpointSlice[];
  serviceLabels: ServiceLabels;
}

/** Counts of the endpoints one SWH publishes on this node. */
export interface EndpointCounts {
  ready: number;
  not_ready: number;
  terminating: number;
}

/** Dependencies of `reconcileSwhSlices`. */
export interface SwhSlicesDeps {
  nodeName: string;
  swh(namespace: string, name: string): Readonly<SwhSlicesObject> | undefined;
  /** This node's slices of the SWH, from the informer cache. */
  ownSlices(namespace: string, name: string): readonly V1EndpointSlice[];
  pods(): readonly PodInfo[];
  states(): ProbeStates;
  zoneOf(nodeName: string): string | undefined;
  /** The Service of that name (undefined = it does not exist, not "not known yet"); throws when unknown. */
  service(
    namespace: string,
    name: string,
  ): Readonly<V1Service> | undefined | Promise<Readonly<V1Service> | undefined>;
  /** Reports whether the SWH's endpoints may be published (`undefined` when the SWH is gone). */
  publication(ref: { namespace: string; name: string }, publication: Publication | undefined): void;
  /** The labels the slices copy from `service` (the Service `service()` returned). */
  serviceLabels(swh: SwhInput, service: Readonly<V1Service> | undefined): ServiceLabels;
  /** Plans and applies the slices; resolves when the API server has them (throws to be retried). */
  write(request: WriteRequest): Promise<void>;
  /** Reports endpoints whose readiness the write changed (Events, metrics). */
  transitions(swh: SwhInput, transitions: readonly EndpointTransition[]): void;
  /** Reports the endpoint counts after the write; `undefined` when the SWH is gone. */
  endpoints(ref: { namespace: string; name: string }, counts: EndpointCounts | undefined): void;
  /** Reports the aggregation's problems with the SWH's probes (e.g. a probe that cannot run: Events). */
  issues(swh: SwhInput, issues: readonly AggregationIssue[]): void;
  /** Reports an SWH whose aggregation threw (a stored object whose shape no longer fits the schema). */
  unprocessable(swh: SwhInput, error: unknown): void;
}

/**
 * Reconciles the SWH `namespace/name`: when it exists, its node slices are made to match the aggregation of the
 * node's pods and probe states — or, while its Service is not one it controls (`endpointPublication`, ADR 0014),
 * to carry nothing: the slices this node wrote for that name are deleted and none are written. A deleted SWH needs
 * nothing here: its slices carry an ownerReference and the garbage collector removes them. An SWH whose
 * aggregation throws is reported and left alone — its slices stay as they are and the reconcile throws a
 * `TerminalError`, so the queue does not retry it until it is added again (retrying the same object cannot
 * succeed; ADR 0022).
 */
export async function reconcileSwhSlices(key: string, deps: SwhSlicesDeps): Promise<void> {
  const [namespace = "", name = ""] = key.split("/", 2);
  const obj = deps.swh(namespace, name);
  const swh = obj === undefined ? undefined : swhInputFromObject(obj);
  if (obj === undefined || swh === undefined || swh.uid === undefined || obj.metadata?.deletionTimestamp) {
    deps.endpoints({ namespace, name }, undefined);
    deps.publication({ namespace, name }, undefined);
    return;
  }
  const service = await deps.service(namespace, name);
  const publication = endpointPublication(obj, service);
  deps.publication({ namespace, name }, publication);
  let groups: EndpointGroup[] = [];
  // Withholding is planning with no groups: the planner deletes this node's slices of the name, writes none.
  if (publication.publish) {
    let aggregation: Aggregation;
    try {
      aggregation = aggregateEndpoints(swh, deps.pods(), deps.states(), {
        zoneOf: deps.zoneOf,
        nodeName: deps.nodeName,
      });
    } catch (error) {
      deps.unprocessable(swh, error);
      throw new TerminalError(`SWH ${key} cannot be processed; its slices are left as they are`, {
        cause: error,
      });
    }
    groups = aggregation.groups;
    deps.issues(swh, aggregation.issues);
  }
  const existing = deps.ownSlices(namespace, name);
  const transitions = findEndpointTransitions(existing, groups);
  await deps.write({
    swh: { ...swh, uid: swh.uid },
    groups,
    existing,
    serviceLabels: deps.serviceLabels(swh, service),
  });
  if (transitions.length > 0) deps.transitions(swh, transitions);
  deps.endpoints({ namespace, name }, countEndpoints(groups));
}

/** Counts endpoints (one per address and port) by published state. */
export function countEndpoints(groups: readonly EndpointGroup[]): EndpointCounts {
  const counts: EndpointCounts = { ready: 0, not_ready: 0, terminating: 0 };
  for (const group of groups) {
    for (const endpoint of group.endpoints) {
      if (endpoint.conditions.terminating) counts.terminating++;
      else if (endpoint.conditions.ready) counts.ready++;
      else counts.not_ready++;
    }
  }
  return counts;
}
