/**
 * The agent's reconcile of one ServiceWithHealthchecks on its node, level-based, in the order it happens:
 * 1. read: the SWH's Service and the spec the controller publishes on it (ADR 0032), this node's slices of it;
 * 2. decide: may its endpoints be published at all (`endpointPublication`: only for a Service the SWH controls,
 *    ADR 0014);
 * 3. aggregate: the node's pods and probe states into endpoint groups (`aggregateEndpoints`), with the topology
 *    hints the spec asks for as far as the controller's published zone-hints verdict allows (ADR 0035), and the
 *    ports the controller says fail open (ADR 0039);
 * 4. write: the slices (`writeSlices` plans and applies the difference), then the readiness gate conditions of
 *    the pods that wait on this SWH whose verdict changed (`readinessGateUpdates`, ADR 0038);
 * 5. report: readiness transitions, endpoint counts, problems with the user's objects.
 * While the Service is not the SWH's (another controller, a selector, reserved) or is gone, the node's slices of
 * that name are deleted through the ordinary planner (no groups). While the published spec is missing or invalid,
 * nothing is known: the slices stay as they are (fail static). An SWH whose aggregation throws is reported and
 * left alone: the reconcile throws a `TerminalError`, so the queue does not retry it until it is added again
 * (retrying the same object cannot succeed; ADR 0022).
 */
import type { V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import {
  type Aggregation,
  type AggregationIssue,
  aggregateEndpoints,
  type PodInfo,
  type ProbeStates,
  type ReadinessGateUpdate,
  readinessGateUpdates,
  type SwhInput,
  swhInputFromObject,
} from "@swh/aggregation";
import { KIND, splitObjectKey } from "@swh/crd-types";
import {
  controllerRefOf,
  endpointPublication,
  type Publication,
  type ServiceSwh,
} from "@swh/crd-types/internal";
import { type Logger, TerminalError } from "@swh/kube";
import { countEndpoints, type EndpointCounts } from "@swh/metrics";
import {
  type EndpointTransition,
  findEndpointTransitions,
  serviceLabelsOf,
  type WriteRequest,
} from "@swh/slice-writer";

/** Which SWH (namespace, name and, when known, uid). */
export interface SwhRef {
  namespace: string;
  name: string;
  uid?: string | undefined;
}

/** A published spec that cannot be used (`readPublishedSwh` said `missing` or `invalid`). */
export type UnusableSpec = Exclude<ServiceSwh, { state: "swh" }>;

/** A Service as the agent reads it, with the SWH it publishes. */
export interface PublishedService {
  service: Readonly<V1Service>;
  swh: ServiceSwh;
}

/** What aggregation reads about the node at the moment of a reconcile. */
export interface NodeAggregationInput {
  nodeName: string;
  pods: readonly PodInfo[];
  states: ProbeStates;
  zoneOf(nodeName: string): string | undefined;
}

/** What a reconcile reads (the informer caches, overlaid with this agent's writes). */
export interface SwhReads {
  /** The Service `namespace/name` (undefined: it does not exist, not "not known yet"); throws when unknown. */
  service(namespace: string, name: string): Promise<PublishedService | undefined>;
  /** This node's slices of the SWH `namespace/name`. */
  ownSlices(namespace: string, name: string): readonly V1EndpointSlice[];
  aggregationInput(): NodeAggregationInput;
}

/** Everything a reconcile writes; each resolves when the API server has it, and throws to be retried. */
export interface SwhWrites {
  /** Plans and applies the node's slices of one SWH. */
  slices: { write(request: WriteRequest, logger: Logger): Promise<void> };
  /** Writes pods' readiness gate conditions. */
  gates: { write(updates: readonly ReadinessGateUpdate[], logger: Logger): Promise<void> };
}

/** Where a reconcile reports what it found and did (logs, Events, metrics). */
export interface SwhReports {
  /** Whether the SWH's endpoints may be published (`undefined`: its Service is gone). */
  publication(ref: SwhRef, publication: Publication | undefined): void;
  /** A Service whose published spec cannot be used: the node's slices of it are left as they are. */
  unusableSpec(ref: SwhRef, unusable: UnusableSpec): void;
  /** Endpoints whose readiness the write changed. */
  transitions(swh: SwhRef, transitions: readonly EndpointTransition[]): void;
  /** The endpoint counts after the write; `undefined` when the Service is gone. */
  endpoints(ref: SwhRef, counts: EndpointCounts | undefined): void;
  /** The aggregation's problems with the SWH's probes (a probe that cannot run). */
  issues(swh: SwhInput, issues: readonly AggregationIssue[]): void;
  /** An SWH whose aggregation threw (a stored object whose shape no longer fits the schema). */
  unprocessable(swh: SwhInput, error: unknown): void;
}

/** Reconciles the SWH `key` (`namespace/name`) on this node; see the file comment. */
export async function reconcileSwh(
  key: string,
  reads: SwhReads,
  writes: SwhWrites,
  report: SwhReports,
  logger: Logger,
): Promise<void> {
  const { slices } = writes;
  const { namespace, name } = splitObjectKey(key);
  const published = await reads.service(namespace, name);
  const uid = published?.swh.uid ?? swhControllerUid(published?.service) ?? "";
  const ref = { namespace, name, uid };
  const publication = endpointPublication({ metadata: ref }, published?.service);
  report.publication(ref, published === undefined ? undefined : publication);
  const existing = reads.ownSlices(namespace, name);
  if (!publication.publish) {
    // Withholding is planning with no groups: the planner deletes this node's slices of the name, writes none.
    if (existing.length > 0) await write(ref, [], existing, {}, { slices, report, logger });
    report.endpoints(ref, published === undefined ? undefined : countEndpoints([]));
    return;
  }
  const read = published?.swh ?? { state: "missing" };
  if (read.state !== "swh") {
    report.unusableSpec(ref, read);
    return;
  }
  const swh = swhInputFromObject(read.swh);
  if (swh === undefined) return;
  const input = reads.aggregationInput();
  const verdicts = { zoneHints: read.zoneHints, failOpenPorts: new Set(read.failOpen) };
  const { groups } = aggregate(swh, { ...input, ...verdicts }, report);
  const labels = serviceLabelsOf(published?.service, swh.spec);
  await write({ namespace, name, uid: read.uid }, groups, existing, labels, {
    slices,
    report,
    logger,
  });
  const gates = readinessGateUpdates(swh, input.pods, groups, input.nodeName);
  if (gates.length > 0) await writes.gates.write(gates, logger);
  report.endpoints(ref, countEndpoints(groups));
}

/** Aggregates `swh` on the node, reporting its issues; an aggregation that throws is terminal for this version. */
function aggregate(
  swh: SwhInput,
  input: NodeAggregationInput & { zoneHints: boolean; failOpenPorts: ReadonlySet<string> },
  report: SwhReports,
): Aggregation {
  let aggregation: Aggregation;
  try {
    aggregation = aggregateEndpoints(swh, input.pods, input.states, {
      zoneOf: input.zoneOf,
      nodeName: input.nodeName,
      zoneHints: input.zoneHints,
      failOpenPorts: input.failOpenPorts,
    });
  } catch (error) {
    report.unprocessable(swh, error);
    throw new TerminalError(
      `SWH ${swh.namespace}/${swh.name} cannot be processed; its slices are left as they are`,
      { cause: error },
    );
  }
  report.issues(swh, aggregation.issues);
  return aggregation;
}

/** Writes `groups` as the node's slices of `swh`, then reports the readiness transitions the write made. */
async function write(
  swh: WriteRequest["swh"],
  groups: WriteRequest["groups"],
  existing: readonly V1EndpointSlice[],
  serviceLabels: WriteRequest["serviceLabels"],
  out: { slices: SwhWrites["slices"]; report: SwhReports; logger: Logger },
): Promise<void> {
  const transitions = findEndpointTransitions(existing, groups);
  await out.slices.write({ swh, groups, existing, serviceLabels }, out.logger);
  if (transitions.length > 0) out.report.transitions(swh, transitions);
}

/** The uid of the SWH controlling `service`, when an SWH does (what a Service without a published spec claims). */
function swhControllerUid(service: Readonly<V1Service> | undefined): string | undefined {
  const ref = controllerRefOf(service?.metadata);
  return ref?.kind === KIND ? ref.uid : undefined;
}
