/**
 * Schema of `status` (SPEC §2.3), written by the controller only. No CEL here: the status is machine-written and
 * bounded by the controller, and the schema only keeps unknown fields out.
 */
import type { SchemaNode } from "./schema-node.js";

/** An int32 field described by `description`. */
function int(description: string): SchemaNode {
  return { type: "integer", format: "int32", description };
}

/** A string field described by `description`. */
function str(description: string): SchemaNode {
  return { type: "string", description };
}

const condition: SchemaNode = {
  type: "object",
  description: "One condition (standard Kubernetes shape).",
  required: ["type", "status", "reason", "message", "lastTransitionTime"],
  properties: {
    type: str(
      "Ready, ServiceReady (alias ChildServiceReady), ProbesValid, AgentsReporting, or Reconciled (present only while the controller stopped retrying).",
    ),
    status: { type: "string", enum: ["True", "False", "Unknown"], description: "True, False or Unknown." },
    reason: str(
      "Machine-readable reason in CamelCase; every reason and what to do about it is listed in docs/troubleshooting.md.",
    ),
    message: str("Human-readable details of the reason."),
    lastTransitionTime: {
      type: "string",
      format: "date-time",
      description: "When the status last changed.",
    },
    observedGeneration: {
      type: "integer",
      format: "int64",
      description: "metadata.generation the condition was computed for.",
    },
  },
};

const endpointPort: SchemaNode = {
  type: "object",
  description: "One Service port of this endpoint.",
  required: ["port", "ready"],
  properties: {
    name: str("Service port name (absent for a single unnamed port)."),
    port: int("Service port number."),
    ready: {
      type: "boolean",
      description: "True when the endpoint serves on this port and is not terminating.",
    },
    failingProbe: str('The first probe of this port\'s group that fails, e.g. "HTTP :8080/healthz".'),
    reason: str(
      "Why that probe fails: a probe failure reason such as ConnectionRefused, Timeout or HTTPStatus (docs/troubleshooting.md).",
    ),
    message: str("Details of the failure (never a secret)."),
  },
};

const endpoint: SchemaNode = {
  type: "object",
  description: "One endpoint: a pod and the state of each of its ports.",
  required: ["pod", "node", "address", "ports"],
  properties: {
    pod: str("Pod name."),
    node: str("Node the pod runs on (whose agent probes it)."),
    address: str("Pod IP (of a dual-stack pod, the IPv4 one)."),
    ports: {
      type: "array",
      description: "Per Service port: ready or not, and why not.",
      items: endpointPort,
    },
  },
};

const loadBalancer: SchemaNode = {
  type: "object",
  description: "Load balancer state, mirrored from the child Service's status.loadBalancer.",
  properties: {
    ingress: {
      type: "array",
      description: "Ingress points of the load balancer.",
      items: {
        type: "object",
        description: "One ingress point.",
        properties: {
          ip: str("IP address of the ingress point."),
          hostname: str("DNS name of the ingress point."),
          ipMode: str("How traffic reaches the ingress IP: VIP or Proxy."),
          ports: {
            type: "array",
            description: "Per-port status of the ingress point.",
            items: {
              type: "object",
              description: "One port of the ingress point.",
              required: ["port", "protocol"],
              properties: {
                port: int("Port number."),
                protocol: str("TCP, UDP or SCTP."),
                error: str("Problem with this port, if any (CamelCase code)."),
              },
            },
          },
        },
      },
    },
  },
};

/** Schema of `status`. */
export const statusSchema: SchemaNode = {
  type: "object",
  description: "Observed state, written by the controller.",
  properties: {
    observedGeneration: {
      type: "integer",
      format: "int64",
      description: "metadata.generation the status was computed for.",
    },
    conditions: {
      type: "array",
      description:
        "Ready, ServiceReady (and its alias ChildServiceReady), ProbesValid, AgentsReporting and, while the controller stopped retrying, Reconciled.",
      items: condition,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["type"],
    },
    readySummary: {
      type: "string",
      description: 'Ready endpoint-ports over all endpoint-ports, e.g. "3/4" (the Ready printer column).',
    },
    externalIPSummary: {
      type: "string",
      description:
        'External addresses as kubectl shows them for a Service: comma-separated, "<pending>" or "<none>" (the External-IP printer column).',
    },
    portsSummary: {
      type: "string",
      description:
        'Service ports as kubectl shows them, e.g. "80/TCP,5432:30432/TCP" (the Ports printer column).',
    },
    ports: {
      type: "array",
      description: "Per Service port: how many endpoints are ready out of all.",
      items: {
        type: "object",
        description: "One Service port.",
        required: ["port", "readyEndpoints", "totalEndpoints"],
        properties: {
          name: str("Service port name."),
          port: int("Service port number."),
          readyEndpoints: int("Endpoints ready on this port."),
          totalEndpoints: int("Endpoints published for this port, ready or not."),
        },
      },
    },
    endpoints: {
      type: "object",
      description: "Endpoint counts, and a bounded list of endpoints with the failing probe of each port.",
      required: ["total", "ready", "notReady", "terminating", "truncated", "list"],
      properties: {
        total: int("All endpoints published by the agents."),
        ready: int("Endpoints ready on every port."),
        notReady: int("Endpoints not ready on some port, terminating ones not counted."),
        terminating: int("Endpoints whose pod is terminating."),
        truncated: { type: "boolean", description: "True when list was cut at its bound (50 by default)." },
        list: {
          type: "array",
          description:
            "Endpoints, not-ready ones first, up to the bound; the EndpointSlices hold all of them.",
          items: endpoint,
        },
      },
    },
    clusterIP: str("Cluster IP of the child Service."),
    clusterIPs: {
      type: "array",
      description: "Cluster IPs of the child Service, one per IP family.",
      items: { type: "string" },
    },
    loadBalancer,
  },
};
