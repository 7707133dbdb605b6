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
import {
  controllerRefOf,
  endpointPublication,
  KIND,
  type Publication,
  type ServiceSwh,
  splitObjectKey,
} from "@swh/crd-types";
import { TerminalError } from "@swh/kube";
import { type EndpointTransition, findEndpointTransitions } from "./endpoint-transitions.js";
import type { ServiceLabels } from "./slice-labels.js";

/** An SWH as the agent's informer holds it. */
export type SwhSlicesObject = KubernetesObject & SwhObject;

/** Which SWH (namespace, name and, when known, uid). */
export type SwhRef = Pick<SwhInput, "namespace" | "name" | "uid">;

/** What the slice writer is asked to make true for one SWH on this node. */
export interface WriteRequest {
  swh: SwhRef & { uid: string };
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

/** A Service whose published SWH cannot be used (`readPublishedSwh` said `missing` or `invalid`). */
export type UnusableSpec = Exclude<ServiceSwh, { state: "swh" }>;

/** Dependencies of `reconcileSwhSlices`. */
export interface SwhSlicesDeps {
  nodeName: string;
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
  /** The SWH `service` publishes: `readPublishedSwh` (ADR 0032), memoized or not. */
  swhOf(service: Readonly<V1Service>): ServiceSwh;
  /** Reports whether the SWH's endpoints may be published (`undefined` when its Service is gone). */
  publication(ref: { namespace: string; name: string }, publication: Publication | undefined): void;
  /** Reports a Service whose SWH spec cannot be used: the node's slices of it are left as they are. */
  unusableSpec(ref: SwhRef, unusable: UnusableSpec): void;
  /** The labels the slices copy from `service` (the Service `service()` returned). */
  serviceLabels(swh: SwhInput, service: Readonly<V1Service> | undefined): ServiceLabels;
  /** Plans and applies the slices; resolves when the API server has them (throws to be retried). */
  write(request: WriteRequest): Promise<void>;
  /** Reports endpoints whose readiness the write changed (Events, metrics). */
  transitions(swh: SwhRef, transitions: readonly EndpointTransition[]): void;
  /** Reports the endpoint counts after the write; `undefined` when the Service is gone. */
  endpoints(ref: { namespace: string; name: string }, counts: EndpointCounts | undefined): void;
  /** Reports the aggregation's problems with the SWH's probes (e.g. a probe that cannot run: Events). */
  issues(swh: SwhInput, issues: readonly AggregationIssue[]): void;
  /** Reports an SWH whose aggregation threw (a stored object whose shape no longer fits the schema). */
  unprocessable(swh: SwhInput, error: unknown): void;
}

/**
 * Reconciles the SWH `namespace/name` on this node, level-based, from its Service: the agent reads an SWH's spec
 * from the annotation the controller writes on the SWH's Service (ADR 0032), never from the SWH.
 * - While the Service is one the SWH controls (`endpointPublication`, ADR 0014) and publishes a valid spec, the
 *   node's slices are made to match the aggregation of the node's pods and probe states.
 * - While it is not (another controller, a selector, reserved) or is gone, the slices this node wrote for that
 *   name are deleted through the ordinary planner (planning with no groups) and none are written. Gone means the
 *   API server said so (`service` reads a synced cache, or the API server when slices are at stake).
 * - While its spec is missing (a Service an older controller wrote) or invalid (someone edited the annotation),
 *   nothing is known: the slices stay as they are (fail static) until the controller writes the spec.
 * An SWH whose aggregation throws is reported and left alone — its slices stay as they are and the reconcile throws
 * a `TerminalError`, so the queue does not retry it until it is added again (retrying the same object cannot
 * succeed; ADR 0022).
 */
export async function reconcileSwhSlices(key: string, deps: SwhSlicesDeps): Promise<void> {
  const { namespace, name } = splitObjectKey(key);
  const ref = { namespace, name };
  const service = await deps.service(namespace, name);
  const read = service === undefined ? undefined : deps.swhOf(service);
  const uid = read?.uid ?? swhControllerUid(service) ?? "";
  const publication = endpointPublication({ metadata: { namespace, name, uid } }, service);
  deps.publication(ref, service === undefined ? undefined : publication);
  const existing = deps.ownSlices(namespace, name);
  if (!publication.publish) {
    // Withholding is planning with no groups: the planner deletes this node's slices of the name, writes none.
    if (existing.length > 0) await withhold({ ...ref, uid }, existing, deps);
    deps.endpoints(ref, service === undefined ? undefined : countEndpoints([]));
    return;
  }
  if (read === undefined || read.state !== "swh") {
    deps.unusableSpec({ ...ref, uid }, read ?? { state: "missing" });
    return;
  }
  const swh = swhInputFromObject(read.swh);
  if (swh === undefined) return;
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
  deps.issues(swh, aggregation.issues);
  const { groups } = aggregation;
  const transitions = findEndpointTransitions(existing, groups);
  await deps.write({
    swh: { name, namespace, uid: read.uid },
    groups,
    existing,
    serviceLabels: deps.serviceLabels(swh, service),
  });
  if (transitions.length > 0) deps.transitions(swh, transitions);
  deps.endpoints(ref, countEndpoints(groups));
}

/** Deletes this node's slices of an SWH whose endpoints may not be published, reporting the endpoints removed. */
async function withhold(
  swh: SwhRef & { uid: string },
  existing: readonly V1EndpointSlice[],
  deps: SwhSlicesDeps,
): Promise<void> {
  const transitions = findEndpointTransitions(existing, []);
  await deps.write({ swh, groups: [], existing, serviceLabels: {} });
  if (transitions.length > 0) deps.transitions(swh, transitions);
}

/** The uid of the SWH controlling `service`, when an SWH does (what a Service without a published spec claims). */
function swhControllerUid(service: Readonly<V1Service> | undefined): string | undefined {
  const ref = controllerRefOf(service?.metadata);
  return ref?.kind === KIND ? ref.uid : undefined;
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
