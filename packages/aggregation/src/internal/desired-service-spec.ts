/**
 * The child Service's spec as the SWH asks for it (SPEC §2.1): every Service field copied, the selector always
 * empty (the agents publish the endpoints), and the defaults the API server would fill in applied up front so a
 * stored Service compares equal to what we want.
 */
import type { V1ServicePort, V1ServiceSpec } from "@kubernetes/client-node";
import type { ServiceFields } from "@swh/crd-types";

/** Seconds the API server puts into `sessionAffinityConfig.clientIP.timeoutSeconds` when it is missing. */
const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10_800;

/** Fields of §2.1 copied verbatim (when set) from the SWH; ports, selector and defaulted ones are handled apart. */
export const COPIED_SPEC_FIELDS = [
  "clusterIP",
  "clusterIPs",
  "externalIPs",
  "externalName",
  "externalTrafficPolicy",
  "internalTrafficPolicy",
  "healthCheckNodePort",
  "ipFamilies",
  "ipFamilyPolicy",
  "loadBalancerClass",
  "loadBalancerIP",
  "loadBalancerSourceRanges",
  "allocateLoadBalancerNodePorts",
  "trafficDistribution",
] as const satisfies readonly (keyof ServiceFields & keyof V1ServiceSpec)[];

/**
 * Returns the Service spec the SWH `spec` describes: selector-less, `type` ClusterIP and `sessionAffinity` None
 * when unset, each port with its protocol (TCP) and targetPort (= port) filled in, `publishNotReadyAddresses`
 * only when true. Unset fields stay unset; the caller decides which stored values to keep. Pure, input untouched.
 */
export function desiredServiceSpec(spec: Readonly<ServiceFields>): V1ServiceSpec {
  const out: V1ServiceSpec = { type: spec.type ?? "ClusterIP" };
  for (const field of COPIED_SPEC_FIELDS) {
    const value = spec[field];
    if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    (out as Record<string, unknown>)[field] = Array.isArray(value) ? [...value] : value;
  }
  const ports = (spec.ports ?? []).map(desiredPort);
  if (ports.length > 0) out.ports = ports;
  if (spec.publishNotReadyAddresses === true) out.publishNotReadyAddresses = true;
  out.sessionAffinity = spec.sessionAffinity ?? "None";
  if (out.sessionAffinity === "ClientIP") {
    out.sessionAffinityConfig = {
      clientIP: {
        timeoutSeconds:
          spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_CLIENT_IP_TIMEOUT_SECONDS,
      },
    };
  }
  return out;
}

function desiredPort(port: Readonly<NonNullable<ServiceFields["ports"]>[number]>): V1ServicePort {
  const out: V1ServicePort = {
    protocol: port.protocol ?? "TCP",
    port: port.port,
    targetPort: port.targetPort === undefined || port.targetPort === "" ? port.port : port.targetPort,
  };
  if (port.name !== undefined && port.name !== "") out.name = port.name;
  if (port.nodePort !== undefined && port.nodePort !== 0) out.nodePort = port.nodePort;
  if (port.appProtocol !== undefined && port.appProtocol !== "") out.appProtocol = port.appProtocol;
  return out;
}
