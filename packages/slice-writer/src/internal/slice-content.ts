/**
 * Conversions between the aggregation's desired endpoints and EndpointSlice content, and the canonical forms
 * used to decide whether a slice must be written (order and absent-vs-default differences never cause a write).
 */
import type {
  DiscoveryV1EndpointPort,
  V1Endpoint,
  V1EndpointSlice,
  V1OwnerReference,
} from "@kubernetes/client-node";
import type { DesiredEndpoint, EndpointGroup } from "@swh/aggregation";
import { canonicalJson } from "@swh/aggregation";
import type { SliceKey } from "../slice-name.js";

/** The slice endpoint for a desired endpoint (its failure travels in the reasons annotation, not here). */
export function toSliceEndpoint(endpoint: DesiredEndpoint): V1Endpoint {
  const out: V1Endpoint = {
    addresses: [endpoint.address],
    conditions: { ...endpoint.conditions },
    nodeName: endpoint.nodeName,
    targetRef: { ...endpoint.targetRef },
  };
  if (endpoint.zone !== undefined) out.zone = endpoint.zone;
  const hints = endpoint.hints;
  if (hints !== undefined) {
    out.hints = {};
    if (hints.forZones !== undefined) out.hints.forZones = hints.forZones.map((name) => ({ name }));
    if (hints.forNodes !== undefined) out.hints.forNodes = hints.forNodes.map((name) => ({ name }));
  }
  return out;
}

/** The single port entry of a group's slices. */
export function toSlicePort(group: EndpointGroup): DiscoveryV1EndpointPort {
  const port: DiscoveryV1EndpointPort = { name: group.portName, port: group.port, protocol: group.protocol };
  if (group.appProtocol !== undefined) port.appProtocol = group.appProtocol;
  return port;
}

/** The key of an existing slice, read from its content; undefined when it is not a one-port IP slice. */
export function keyOfSlice(slice: V1EndpointSlice): SliceKey | undefined {
  const ports = slice.ports ?? [];
  const port = ports[0];
  if (ports.length !== 1 || port?.port === undefined) return undefined;
  if (slice.addressType !== "IPv4" && slice.addressType !== "IPv6") return undefined;
  return {
    portName: port.name ?? "",
    port: port.port,
    protocol: port.protocol ?? "TCP",
    addressFamily: slice.addressType,
  };
}

/** String form of a slice key, for maps. */
export function keyString(key: SliceKey): string {
  return [key.portName, key.port, key.protocol, key.addressFamily].join("\u0000");
}

/**
 * Canonical text of a slice endpoint: equal text means writing it again would change nothing. A fixed-order
 * array (not an object) so no key sorting is needed on this hot path.
 */
export function endpointSignature(endpoint: V1Endpoint): string {
  const c = endpoint.conditions ?? {};
  const ref = endpoint.targetRef;
  return JSON.stringify([
    endpoint.addresses,
    c.ready ?? null,
    c.serving ?? null,
    c.terminating ?? null,
    endpoint.nodeName ?? null,
    endpoint.zone ?? null,
    ref === undefined ? null : [ref.kind ?? "", ref.namespace ?? "", ref.name ?? "", ref.uid ?? ""],
    endpoint.hostname ?? null,
    endpoint.hints === undefined ? null : canonicalJson(endpoint.hints),
  ]);
}

/** A copy of a slice endpoint sharing nothing with the original (cheaper than structuredClone for this shape). */
export function copyEndpoint(endpoint: V1Endpoint): V1Endpoint {
  const out: V1Endpoint = { addresses: [...endpoint.addresses] };
  if (endpoint.conditions !== undefined) out.conditions = { ...endpoint.conditions };
  if (endpoint.nodeName !== undefined) out.nodeName = endpoint.nodeName;
  if (endpoint.zone !== undefined) out.zone = endpoint.zone;
  if (endpoint.targetRef !== undefined) out.targetRef = { ...endpoint.targetRef };
  if (endpoint.hostname !== undefined) out.hostname = endpoint.hostname;
  if (endpoint.hints !== undefined) out.hints = structuredClone(endpoint.hints);
  return out;
}

/** Canonical text of a port entry. */
export function portSignature(port: DiscoveryV1EndpointPort | undefined): string {
  return canonicalJson([
    port?.name ?? "",
    port?.port ?? null,
    port?.protocol ?? "TCP",
    port?.appProtocol ?? null,
  ]);
}

/** The controller ownerReference every slice carries: the SWH. */
export function controllerRefMatches(
  refs: readonly V1OwnerReference[] | undefined,
  wanted: V1OwnerReference,
): boolean {
  const controllers = (refs ?? []).filter((r) => r.controller === true);
  const [only] = controllers;
  return (
    controllers.length === 1 &&
    only?.uid === wanted.uid &&
    only.name === wanted.name &&
    only.kind === wanted.kind &&
    only.apiVersion === wanted.apiVersion
  );
}
