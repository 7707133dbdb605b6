import type { IntOrString, Protocol } from "@swh/crd-types";
import type { AddressFamily, ContainerPort } from "./types.js";

/**
 * Resolves a Service port's target against one pod (SPEC §3.1): a number is itself, a name is the number of the
 * pod's container port with that name and the Service port's protocol, empty means the Service port. Returns
 * undefined when the name does not resolve on this pod.
 */
export function resolveServiceTargetPort(
  servicePort: { port: number; protocol: Protocol; targetPort?: IntOrString },
  containerPorts: readonly ContainerPort[],
): number | undefined {
  const target = servicePort.targetPort;
  if (target === undefined || target === "" || target === 0) return servicePort.port;
  if (typeof target === "number") return target;
  return containerPorts.find((p) => p.name === target && p.protocol === servicePort.protocol)?.containerPort;
}

/**
 * Resolves a probe's targetPort against one pod: a number is itself, a name is the number of the pod's container
 * port with that name (probes are TCP-based, but ports are matched by number, so any protocol's name counts; a
 * TCP-protocol port wins when names repeat). Returns undefined when the name does not resolve.
 */
export function resolveProbeTargetPort(
  targetPort: IntOrString,
  containerPorts: readonly ContainerPort[],
): number | undefined {
  if (typeof targetPort === "number") return targetPort;
  const named = containerPorts.filter((p) => p.name === targetPort);
  return (named.find((p) => p.protocol === "TCP") ?? named[0])?.containerPort;
}

/** Address family of an IP address literal. */
function addressFamilyOf(address: string): AddressFamily {
  return address.includes(":") ? "IPv6" : "IPv4";
}

/** The pod's first address of each family, in family order IPv4, IPv6 (one group per family the pod has). */
export function addressesByFamily(ips: readonly string[]): { family: AddressFamily; address: string }[] {
  const result: { family: AddressFamily; address: string }[] = [];
  for (const family of ["IPv4", "IPv6"] as const) {
    const address = ips.find((ip) => addressFamilyOf(ip) === family);
    if (address !== undefined) result.push({ family, address });
  }
  return result;
}
