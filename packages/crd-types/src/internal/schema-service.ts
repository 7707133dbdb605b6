/**
 * Schema of the Service part of the spec (SPEC §2.1): every field of core/v1 ServiceSpec that makes sense without
 * a pod-selecting controller. Limits mirror the Service API where it has them, and otherwise bound lists and
 * strings so that the CEL rules stay within the API server's cost budget.
 */
import type { ServicePort, ServiceWithHealthchecksSpec } from "../types.js";
import { portNumberSchema, targetPortSchema } from "./port-rules.js";
import { celRule, type SchemaNode } from "./schema-node.js";

/** Most ports one resource may declare (bounds the O(n²) uniqueness rule). */
export const MAX_PORTS = 100;

const DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

const str = (description: string, maxLength: number): SchemaNode => ({
  type: "string",
  maxLength,
  description,
});
const strList = (description: string, maxItems: number, maxLength: number): SchemaNode => ({
  type: "array",
  maxItems,
  description,
  items: { type: "string", maxLength },
});
const oneOf = (description: string, values: readonly string[]): SchemaNode => ({
  type: "string",
  enum: values,
  description,
});

const servicePort: SchemaNode = {
  type: "object",
  required: ["port"],
  properties: {
    name: {
      type: "string",
      maxLength: 63,
      pattern: DNS_LABEL,
      description: "Port name (DNS label); required when the Service has more than one port.",
    },
    protocol: {
      ...oneOf("Protocol of the port.", ["TCP", "UDP", "SCTP"]),
      default: "TCP",
    },
    port: portNumberSchema("Port the Service exposes."),
    targetPort: targetPortSchema("targetPort"),
    nodePort: portNumberSchema("Node port (NodePort and LoadBalancer Services)."),
    appProtocol: str("Application protocol of the port (e.g. kubernetes.io/h2c).", 256),
  },
};

/** Schema of the Service fields; `spec` merges these properties with `healthcheck`. */
export const serviceFieldsProperties: Readonly<Record<string, SchemaNode>> = {
  ports: {
    type: "array",
    maxItems: MAX_PORTS,
    default: [],
    description: "Ports of the Service; probes gate each port independently.",
    items: servicePort,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["port", "protocol"],
    "x-kubernetes-validations": [
      celRule<ServicePort[]>(
        "size(self) <= 1 || self.all(p, has(p.name) && size(p.name) > 0)",
        "ports[].name is required on every port when more than one port is defined",
        (ports) => ports.length <= 1 || ports.every((p) => (p.name ?? "") !== ""),
      ),
      celRule<ServicePort[]>(
        "self.all(p, !has(p.name) || self.filter(q, has(q.name) && q.name == p.name).size() == 1)",
        "ports[].name must be unique",
        (ports) =>
          ports.every((p) => p.name === undefined || ports.filter((q) => q.name === p.name).length === 1),
      ),
    ],
  },
  selector: {
    type: "object",
    maxProperties: 64,
    description:
      "Labels of the pods to balance to. Missing or empty selects no pods (Service semantics), never all pods.",
    additionalProperties: { type: "string", maxLength: 63 },
    "x-kubernetes-map-type": "atomic",
  },
  type: {
    ...oneOf("Service type.", ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]),
    default: "ClusterIP",
  },
  clusterIP: str('Cluster IP to request, "None" for a headless Service, empty to allocate.', 45),
  clusterIPs: strList("Cluster IPs to request, one per IP family.", 2, 45),
  externalIPs: strList("Extra IPs on which nodes accept traffic for this Service.", 64, 45),
  externalName: str("DNS name the Service points at (type ExternalName).", 253),
  externalTrafficPolicy: oneOf("How external traffic is routed to endpoints.", ["Cluster", "Local"]),
  internalTrafficPolicy: oneOf("How cluster-internal traffic is routed to endpoints.", ["Cluster", "Local"]),
  healthCheckNodePort: portNumberSchema(
    "Node port of the health check (LoadBalancer with externalTrafficPolicy Local).",
  ),
  ipFamilies: {
    type: "array",
    maxItems: 2,
    description: "IP families of the Service.",
    items: oneOf("IP family.", ["IPv4", "IPv6"]),
    "x-kubernetes-validations": [
      celRule<string[]>(
        "size(self) < 2 || self[0] != self[1]",
        "ipFamilies must not repeat a family",
        (families) => families.length < 2 || families[0] !== families[1],
      ),
    ],
  },
  ipFamilyPolicy: oneOf("Dual-stack policy.", ["SingleStack", "PreferDualStack", "RequireDualStack"]),
  loadBalancerClass: str("Load balancer implementation to use.", 253),
  loadBalancerIP: str("Requested load balancer IP (deprecated in Service, passed through).", 45),
  loadBalancerSourceRanges: strList("Client CIDRs the load balancer accepts.", 256, 49),
  allocateLoadBalancerNodePorts: {
    type: "boolean",
    description: "Whether a LoadBalancer Service gets node ports.",
  },
  publishNotReadyAddresses: {
    type: "boolean",
    description: "Publish every candidate pod as ready on every port; probes are then only reported.",
  },
  sessionAffinity: oneOf("Session affinity.", ["None", "ClientIP"]),
  sessionAffinityConfig: {
    type: "object",
    description: "Session affinity settings.",
    properties: {
      clientIP: {
        type: "object",
        description: "Settings of ClientIP session affinity.",
        properties: {
          timeoutSeconds: {
            type: "integer",
            format: "int32",
            minimum: 1,
            maximum: 86400,
            description: "Seconds a ClientIP affinity lasts.",
          },
        },
      },
    },
  },
  trafficDistribution: str("Traffic distribution preference (e.g. PreferClose).", 63),
};

/** Cross-field rules of the Service part, attached to `spec`. */
export const serviceFieldsRules = [
  celRule<ServiceWithHealthchecksSpec>(
    "self.type != 'ExternalName' || (has(self.externalName) && size(self.externalName) > 0)",
    "externalName is required when type is ExternalName",
    (spec) => spec.type !== "ExternalName" || (spec.externalName ?? "") !== "",
    ".externalName",
  ),
  celRule<ServiceWithHealthchecksSpec>(
    "self.type in ['NodePort', 'LoadBalancer'] || !has(self.ports) || self.ports.all(p, !has(p.nodePort))",
    "ports[].nodePort may only be set when type is NodePort or LoadBalancer",
    (spec) =>
      spec.type === "NodePort" ||
      spec.type === "LoadBalancer" ||
      (spec.ports ?? []).every((p) => p.nodePort === undefined),
    ".ports",
  ),
  celRule<ServiceWithHealthchecksSpec>(
    "!has(self.clusterIP) || self.clusterIP != 'None' || self.type == 'ClusterIP'",
    "clusterIP None (headless) requires type ClusterIP",
    (spec) => spec.clusterIP !== "None" || spec.type === "ClusterIP",
    ".clusterIP",
  ),
];
