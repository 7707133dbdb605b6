/**
 * Merges the desired Service spec into a stored one. What the API server allocated or defaulted and the SWH
 * leaves unset (cluster IPs, IP families, node ports, health-check node port, traffic policies) is kept, so a
 * sync never fights the allocator; everything the SWH controls is replaced. A cluster IP the SWH wants changed
 * cannot be written (the field is immutable) and is returned as a result instead of a failing write.
 */
import type { V1ServicePort, V1ServiceSpec } from "@kubernetes/client-node";
import { sameJson } from "../same-json.js";
import { COPIED_SPEC_FIELDS } from "./desired-service-spec.js";

/** Outcome of merging: the spec to store, or why it cannot be stored. */
export type SpecMerge =
  | { ok: true; spec: V1ServiceSpec; changed: boolean }
  | { ok: false; reason: "ClusterIPImmutable"; message: string };

/** Fields kept from the stored Service when the desired spec leaves them unset (allocated or defaulted). */
const KEPT_WHEN_UNSET = [
  "clusterIP",
  "clusterIPs",
  "ipFamilies",
  "ipFamilyPolicy",
  "internalTrafficPolicy",
] as const;

/** Every spec field this controller owns; the rest of a stored spec (future fields) is left as it is. */
const MANAGED_FIELDS = [
  "ports",
  "selector",
  "type",
  "publishNotReadyAddresses",
  "sessionAffinity",
  "sessionAffinityConfig",
  ...COPIED_SPEC_FIELDS,
] as const satisfies readonly (keyof V1ServiceSpec)[];

/**
 * Returns the spec to write given `desired` (from `desiredServiceSpec`) and the stored spec (undefined for a
 * new Service); `changed` is false when the stored spec already matches, i.e. no write is needed. Neither
 * input is modified (the stored one usually comes from an informer cache).
 */
export function mergeServiceSpec(
  desired: Readonly<V1ServiceSpec>,
  stored: Readonly<V1ServiceSpec> | undefined,
): SpecMerge {
  if (stored === undefined) return { ok: true, spec: { ...desired }, changed: true };
  const immutable = clusterIPChange(desired, stored);
  if (immutable !== undefined) return { ok: false, reason: "ClusterIPImmutable", message: immutable };

  const out: V1ServiceSpec = { ...stored };
  for (const field of MANAGED_FIELDS) delete out[field];
  Object.assign(out, desired);
  for (const field of KEPT_WHEN_UNSET) {
    if (desired[field] === undefined && stored[field] !== undefined)
      (out as Record<string, unknown>)[field] = stored[field];
  }
  const type = desired.type ?? "ClusterIP";
  const external = type === "NodePort" || type === "LoadBalancer";
  if (external && desired.externalTrafficPolicy === undefined && stored.externalTrafficPolicy !== undefined) {
    out.externalTrafficPolicy = stored.externalTrafficPolicy;
  }
  if (type === "LoadBalancer") {
    if (
      desired.allocateLoadBalancerNodePorts === undefined &&
      stored.allocateLoadBalancerNodePorts !== undefined
    ) {
      out.allocateLoadBalancerNodePorts = stored.allocateLoadBalancerNodePorts;
    }
    if (
      desired.healthCheckNodePort === undefined &&
      stored.healthCheckNodePort !== undefined &&
      out.externalTrafficPolicy === "Local"
    ) {
      out.healthCheckNodePort = stored.healthCheckNodePort;
    }
  }
  if (desired.ports !== undefined) {
    out.ports = desired.ports.map((port) =>
      external ? withAllocatedNodePort(port, stored.ports ?? []) : { ...port },
    );
  }
  return { ok: true, spec: out, changed: !sameManagedFields(out, stored) };
}

/** True when the managed fields of two specs carry the same data. */
function sameManagedFields(a: Readonly<V1ServiceSpec>, b: Readonly<V1ServiceSpec>): boolean {
  return MANAGED_FIELDS.every((field) => sameJson(a[field], b[field]));
}

function withAllocatedNodePort(port: V1ServicePort, storedPorts: readonly V1ServicePort[]): V1ServicePort {
  if (port.nodePort !== undefined) return { ...port };
  const protocol = port.protocol ?? "TCP";
  const match =
    storedPorts.find((p) => p.port === port.port && (p.protocol ?? "TCP") === protocol) ??
    (port.name === undefined
      ? undefined
      : storedPorts.find((p) => p.name === port.name && (p.protocol ?? "TCP") === protocol));
  return match?.nodePort === undefined ? { ...port } : { ...port, nodePort: match.nodePort };
}

/** A message when the desired spec would change an allocated cluster IP (or headlessness); undefined otherwise. */
function clusterIPChange(
  desired: Readonly<V1ServiceSpec>,
  stored: Readonly<V1ServiceSpec>,
): string | undefined {
  if (desired.type === "ExternalName" || stored.type === "ExternalName") return undefined;
  const storedIP = stored.clusterIP ?? "";
  if (storedIP === "") return undefined;
  const wantedIP = desired.clusterIP ?? "";
  if (wantedIP !== "" && wantedIP !== storedIP) {
    return `spec.clusterIP is ${storedIP} on the Service and cannot change to ${wantedIP}; delete the Service to re-create it`;
  }
  if (wantedIP === "" && storedIP === "None") {
    return "the Service is headless (clusterIP None) and cannot get a cluster IP; delete the Service to re-create it";
  }
  const wantedFirst = desired.clusterIPs?.[0];
  const storedFirst = stored.clusterIPs?.[0];
  if (wantedFirst !== undefined && storedFirst !== undefined && wantedFirst !== storedFirst) {
    return `spec.clusterIPs[0] is ${storedFirst} on the Service and cannot change to ${wantedFirst}; delete the Service to re-create it`;
  }
  return undefined;
}
