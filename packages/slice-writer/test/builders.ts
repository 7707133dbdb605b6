/** Small builders and a model of what the API server does with a plan, for the planner's tests. */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { DesiredEndpoint, EndpointGroup } from "@swh/aggregation";
import { type PlanSlicesInput, planSlices, type SlicePlan } from "../src/index.js";

export const swh = { name: "web", namespace: "default", uid: "swh-uid" } as const;
export const nodeName = "node-a";

export function anEndpoint(address: string, overrides: Partial<DesiredEndpoint> = {}): DesiredEndpoint {
  return {
    address,
    conditions: { ready: true, serving: true, terminating: false },
    nodeName,
    zone: "zone-1",
    targetRef: { kind: "Pod", name: `pod-${address}`, namespace: "default", uid: `uid-${address}` },
    ...overrides,
  };
}

export function aGroup(overrides: Partial<EndpointGroup> = {}): EndpointGroup {
  return {
    portName: "http",
    port: 8080,
    protocol: "TCP",
    addressFamily: "IPv4",
    endpoints: [],
    ...overrides,
  };
}

/** Addresses 10.244.1.1 .. 10.244.1.n. */
export function addresses(n: number, from = 1): string[] {
  return Array.from({ length: n }, (_, i) => `10.244.1.${from + i}`);
}

/** A plan input with the defaults of these tests. */
export function anInput(overrides: Partial<PlanSlicesInput> = {}): PlanSlicesInput {
  return { swh, nodeName, groups: [], existing: [], ...overrides };
}

/** Recursively freezes a value so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

let resourceVersion = 1000;

/**
 * What the API server holds after performing `plan` on `existing`: creates added, updates replacing the object
 * of the same name (which must exist at the same resourceVersion), deletes removed; written objects get a new
 * resourceVersion. Throws when the plan would be rejected (unknown name, stale version, name taken).
 */
export function applyToModel(existing: readonly V1EndpointSlice[], plan: SlicePlan): V1EndpointSlice[] {
  const byName = new Map(existing.map((s) => [s.metadata?.name ?? "", s]));
  const stamp = (s: V1EndpointSlice): V1EndpointSlice =>
    deepFreeze({
      ...structuredClone(s),
      metadata: { ...structuredClone(s.metadata), resourceVersion: String(++resourceVersion) },
    });
  for (const slice of plan.update) {
    const name = slice.metadata?.name ?? "";
    const current = byName.get(name);
    if (current?.metadata?.resourceVersion !== slice.metadata?.resourceVersion)
      throw new Error(`conflict on ${name}`);
    byName.set(name, stamp(slice));
  }
  for (const slice of plan.delete) {
    if (!byName.delete(slice.metadata?.name ?? "")) throw new Error(`not found ${slice.metadata?.name}`);
  }
  for (const slice of plan.create) {
    const name = slice.metadata?.name ?? "";
    if (byName.has(name)) throw new Error(`already exists ${name}`);
    byName.set(name, stamp(slice));
  }
  return [...byName.values()];
}

/** Existing slices as the API server would hold them after creating the plan of `input` from scratch. */
export function existingFor(input: PlanSlicesInput): V1EndpointSlice[] {
  return applyToModel([], planSlices({ ...input, existing: [] }));
}

/** Plan size as `create/update/delete` counts, for compact assertions. */
export function counts(plan: SlicePlan): string {
  return `${plan.create.length}/${plan.update.length}/${plan.delete.length}`;
}

/** The endpoints each slice holds: `port/family: address,address` (addresses sorted), sorted. */
export function contents(slices: readonly V1EndpointSlice[]): string[] {
  return slices
    .map(
      (s) =>
        `${s.ports?.[0]?.port}/${s.addressType}: ${(s.endpoints ?? [])
          .map((e) => e.addresses[0])
          .sort()
          .join(",")}`,
    )
    .sort();
}
