/**
 * The slice planner (SPEC §4), modelled on Kubernetes' EndpointSlice reconciler: from the desired endpoint
 * groups of one SWH on one node and the slices that exist, the slices to create, update and delete. Pure: the
 * inputs (often informer-cache objects) are never mutated; outputs are fresh objects.
 */
import type { V1Endpoint, V1EndpointSlice, V1OwnerReference } from "@kubernetes/client-node";
import type { DesiredEndpoint, EndpointGroup } from "@swh/aggregation";
import {
  ANNOTATION_DRAIN,
  ANNOTATION_ENDPOINT_REASONS,
  ANNOTATION_NODE_NAME,
  API_VERSION,
  DRAINED_REASON,
  KIND,
} from "@swh/crd-types";
import { DEFAULT_MAX_ENDPOINTS_PER_SLICE } from "@swh/crd-types/internal";
import { type EndpointReason, formatReasons } from "./internal/reasons-codec.js";
import {
  controllerRefMatches,
  copyEndpoint,
  endpointSignature,
  keyOfSlice,
  keyString,
  portSignature,
  toSliceEndpoint,
  toSlicePort,
} from "./internal/slice-content.js";
import { isOwnedSlice, MANAGED_LABEL_KEYS, type ServiceLabels, sliceLabels } from "./slice-labels.js";
import { type SliceKey, sliceName } from "./slice-name.js";

/** Input of `planSlices`: everything the planner needs, as plain data. */
export interface PlanSlicesInput {
  swh: { name: string; namespace: string; uid: string };
  nodeName: string;
  groups: readonly EndpointGroup[];
  /** Slices that exist; slices this agent does not own for this SWH are ignored (never updated or deleted). */
  existing: readonly V1EndpointSlice[];
  maxEndpointsPerSlice?: number;
  serviceLabels?: ServiceLabels;
}

/** What to write: new slices, changed slices (carrying the resourceVersion they were read at), slices to delete. */
export interface SlicePlan {
  create: V1EndpointSlice[];
  update: V1EndpointSlice[];
  delete: V1EndpointSlice[];
}

interface Wanted {
  key: SliceKey;
  group: EndpointGroup;
  /** Desired slice endpoints by address, in address order. */
  endpoints: Map<string, V1Endpoint>;
  /** Canonical form of each desired endpoint, by address. */
  signatures: Map<string, string>;
  /** Why each failing desired endpoint does not serve, by address (the reasons annotation). */
  reasons: Map<string, EndpointReason>;
}

interface SliceState {
  slice: V1EndpointSlice;
  kept: V1Endpoint[];
  changed: boolean;
}

/**
 * Returns the writes that make the slices of (`swh`, `nodeName`) carry exactly `groups`: one slice family per
 * (Service port name, resolved port, protocol, address family), at most `maxEndpointsPerSlice` endpoints each
 * (default 100). Endpoints stay in the slice they are in; new ones fill slices being written anyway, then slices
 * with room, and only then new slices; a slice left empty is deleted. Every slice written carries the full node
 * name (`ANNOTATION_NODE_NAME`) and, when some of its endpoints fail, the reasons annotation made from each
 * endpoint's `failure` (`ANNOTATION_ENDPOINT_REASONS`): `readSlice` reads both back. A slice is written only when
 * its content, its reasons, our labels or its controller reference differ canonically (order never matters), so
 * planning against the result of applying a plan yields an empty plan; a slice that lacks only the node
 * annotation (written by an older agent) gets it with its next write. Deterministic: the same inputs in any order
 * give the same plan.
 */
export function planSlices(input: PlanSlicesInput): SlicePlan {
  const max = input.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`maxEndpointsPerSlice must be an integer >= 1, got ${max}`);
  }
  const { swh, nodeName } = input;
  const ownerRef: V1OwnerReference = {
    apiVersion: API_VERSION,
    kind: KIND,
    name: swh.name,
    uid: swh.uid,
    controller: true,
  };
  const owned = input.existing
    .filter(
      (s) =>
        isOwnedSlice(s, { nodeName, swhName: swh.name }) &&
        (s.metadata?.namespace ?? swh.namespace) === swh.namespace,
    )
    .sort((a, b) => compare(a.metadata?.name ?? "", b.metadata?.name ?? ""));
  const wanted = wantedByKey(input.groups);
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const slicesByKey = new Map<string, V1EndpointSlice[]>();
  for (const slice of owned) {
    const key = keyOfSlice(slice);
    const k = key === undefined ? undefined : keyString(key);
    if (k === undefined || !wanted.has(k)) {
      plan.delete.push(slice);
      continue;
    }
    const list = slicesByKey.get(k);
    if (list === undefined) slicesByKey.set(k, [slice]);
    else list.push(slice);
  }
  const usedNames = new Set(owned.map((s) => s.metadata?.name ?? ""));
  for (const [k, want] of [...wanted].sort(([a], [b]) => compare(a, b))) {
    const labels = sliceLabels({
      swhName: swh.name,
      nodeName,
      portName: want.key.portName,
      addressFamily: want.key.addressFamily,
      ...(input.serviceLabels === undefined ? {} : { serviceLabels: input.serviceLabels }),
    });
    const states = keepExisting(slicesByKey.get(k) ?? [], want, max, labels, ownerRef);
    const placed = new Set(states.flatMap((s) => s.kept.map((e) => e.addresses[0])));
    const unplaced = fill(
      states,
      [...want.endpoints.keys()].filter((address) => !placed.has(address)),
      want,
      max,
    );
    for (const state of states) {
      if (state.kept.length === 0) {
        plan.delete.push(state.slice);
        continue;
      }
      const reasons = reasonsOf(state.kept, want);
      if (state.changed || state.slice.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS] !== reasons)
        plan.update.push(updatedSlice(state, want, labels, ownerRef, { nodeName, reasons }));
    }
    for (let start = 0, index = 0; start < unplaced.length; start += max) {
      let name = sliceName({ swhName: swh.name, nodeName, key: want.key, index });
      while (usedNames.has(name))
        name = sliceName({ swhName: swh.name, nodeName, key: want.key, index: ++index });
      usedNames.add(name);
      const endpoints = unplaced
        .slice(start, start + max)
        .map((address) => want.endpoints.get(address) as V1Endpoint);
      const annotations: Record<string, string> = { [ANNOTATION_NODE_NAME]: nodeName };
      const reasons = reasonsOf(endpoints, want);
      if (reasons !== undefined) annotations[ANNOTATION_ENDPOINT_REASONS] = reasons;
      plan.create.push({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name,
          namespace: swh.namespace,
          labels: { ...labels },
          annotations,
          ownerReferences: [{ ...ownerRef }],
        },
        addressType: want.key.addressFamily,
        ports: [toSlicePort(want.group)],
        endpoints: endpoints.map(copyEndpoint),
      });
    }
  }
  return plan;
}

/**
 * Why a desired endpoint does not serve, for the reasons annotation: its failing probe (with the target, for
 * restart seeding), else `Drained` when its pod is drained (no target: nothing to seed from it).
 */
function reasonOf(endpoint: DesiredEndpoint): EndpointReason | undefined {
  const { failure } = endpoint;
  if (failure !== undefined)
    return {
      probe: failure.failingProbe,
      reason: failure.reason,
      message: failure.message,
      target: failure.targetId,
    };
  if (endpoint.drained === true)
    return { reason: DRAINED_REASON, message: `the pod's annotation ${ANNOTATION_DRAIN} drains it` };
  return undefined;
}

/** Groups the desired endpoints by slice key; an address repeated in one key keeps its canonically smallest form. */
function wantedByKey(groups: readonly EndpointGroup[]): Map<string, Wanted> {
  const wanted = new Map<string, Wanted>();
  for (const group of groups) {
    const key: SliceKey = {
      portName: group.portName,
      port: group.port,
      protocol: group.protocol,
      addressFamily: group.addressFamily,
    };
    const k = keyString(key);
    let want = wanted.get(k);
    if (want === undefined) {
      want = { key, group, endpoints: new Map(), signatures: new Map(), reasons: new Map() };
      wanted.set(k, want);
    }
    for (const endpoint of group.endpoints) {
      const next = toSliceEndpoint(endpoint);
      const signature = endpointSignature(next);
      const current = want.signatures.get(endpoint.address);
      if (current === undefined || signature < current) {
        want.endpoints.set(endpoint.address, next);
        want.signatures.set(endpoint.address, signature);
        const reason = reasonOf(endpoint);
        if (reason === undefined) want.reasons.delete(endpoint.address);
        else want.reasons.set(endpoint.address, reason);
      }
    }
  }
  for (const want of wanted.values()) {
    want.endpoints = new Map([...want.endpoints].sort(([a], [b]) => compare(a, b)));
  }
  return wanted;
}

/** Keeps, in each existing slice, the endpoints still desired (each address once, at most `max` per slice). */
function keepExisting(
  slices: readonly V1EndpointSlice[],
  want: Wanted,
  max: number,
  labels: Record<string, string>,
  ownerRef: V1OwnerReference,
): SliceState[] {
  const placed = new Set<string>();
  return slices.map((slice) => {
    // Address order (then canonical form, for a repeated address) makes the kept set independent of input order.
    const existing = (slice.endpoints ?? [])
      .map((endpoint) => ({
        endpoint,
        address: endpoint.addresses[0],
        signature: endpointSignature(endpoint),
      }))
      .sort((a, b) => compare(a.address ?? "", b.address ?? "") || compare(a.signature, b.signature));
    const kept: V1Endpoint[] = [];
    let changed =
      portSignature(slice.ports?.[0]) !== portSignature(toSlicePort(want.group)) ||
      MANAGED_LABEL_KEYS.some((key) => slice.metadata?.labels?.[key] !== labels[key]) ||
      !controllerRefMatches(slice.metadata?.ownerReferences, ownerRef);
    for (const { endpoint, address, signature } of existing) {
      const desired = address === undefined ? undefined : want.endpoints.get(address);
      if (
        address === undefined ||
        desired === undefined ||
        endpoint.addresses.length !== 1 ||
        placed.has(address) ||
        kept.length >= max
      ) {
        changed = true;
        continue;
      }
      if (signature !== want.signatures.get(address)) changed = true;
      placed.add(address);
      kept.push(desired);
    }
    return { slice, kept, changed };
  });
}

/**
 * Places `unplaced` endpoints into existing slices — first slices written anyway, then emptied slices (reused
 * rather than deleted and re-created), then untouched slices with room — and returns those left for new slices.
 */
function fill(states: SliceState[], unplaced: readonly string[], want: Wanted, max: number): string[] {
  const tiers = [
    states.filter((s) => s.changed && s.kept.length > 0),
    states.filter((s) => s.kept.length === 0),
    states.filter((s) => !s.changed && s.kept.length > 0),
  ];
  let next = 0;
  for (const state of tiers.flat()) {
    while (next < unplaced.length && state.kept.length < max) {
      state.kept.push(want.endpoints.get(unplaced[next++] as string) as V1Endpoint);
      state.changed = true;
    }
  }
  return unplaced.slice(next);
}

/** The reasons annotation value for `endpoints` of one slice family; undefined when all of them pass. */
function reasonsOf(endpoints: readonly V1Endpoint[], want: Wanted): string | undefined {
  const reasons = new Map<string, EndpointReason>();
  for (const endpoint of endpoints) {
    const address = endpoint.addresses[0] as string;
    const reason = want.reasons.get(address);
    if (reason !== undefined) reasons.set(address, reason);
  }
  return formatReasons(reasons);
}

function updatedSlice(
  state: SliceState,
  want: Wanted,
  labels: Record<string, string>,
  ownerRef: V1OwnerReference,
  annotations: { nodeName: string; reasons: string | undefined },
): V1EndpointSlice {
  const { slice } = state;
  const metadata = structuredClone(slice.metadata ?? {});
  delete metadata.managedFields;
  metadata.annotations = { ...metadata.annotations, [ANNOTATION_NODE_NAME]: annotations.nodeName };
  if (annotations.reasons === undefined) delete metadata.annotations[ANNOTATION_ENDPOINT_REASONS];
  else metadata.annotations[ANNOTATION_ENDPOINT_REASONS] = annotations.reasons;
  const foreignLabels = Object.entries(metadata.labels ?? {}).filter(
    ([key]) => !MANAGED_LABEL_KEYS.includes(key),
  );
  metadata.labels = { ...Object.fromEntries(foreignLabels), ...labels };
  const otherRefs = (metadata.ownerReferences ?? []).filter(
    (r) => r.controller !== true && r.uid !== ownerRef.uid,
  );
  metadata.ownerReferences = [{ ...ownerRef }, ...otherRefs];
  const endpoints = [...state.kept].sort((a, b) => compare(a.addresses[0] ?? "", b.addresses[0] ?? ""));
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata,
    addressType: slice.addressType,
    ports: [toSlicePort(want.group)],
    endpoints: endpoints.map(copyEndpoint),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
