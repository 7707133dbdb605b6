/**
 * Schema of `status` (SPEC §2.3), written by the controller only. No CEL here: the status is machine-written and
 * bounded by the controller, and the schema only keeps unknown fields out.
 */
import type { SchemaNode } from "./schema-node.js";

const int: SchemaNode = { type: "integer", format: "int32" };
const str: SchemaNode = { type: "string" };

const condition: SchemaNode = {
  type: "object",
  required: ["type", "status", "reason", "message", "lastTransitionTime"],
  properties: {
    type: str,
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    reason: str,
    message: str,
    lastTransitionTime: { type: "string", format: "date-time" },
    observedGeneration: { type: "integer", format: "int64" },
  },
};

const endpointPort: SchemaNode = {
  type: "object",
  required: ["port", "ready"],
  properties: {
    name: str,
    port: int,
    ready: { type: "boolean" },
    failingProbe: str,
    reason: str,
    message: str,
  },
};

const endpoint: SchemaNode = {
  type: "object",
  required: ["pod", "node", "address", "ports"],
  properties: {
    pod: str,
    node: str,
    address: str,
    ports: { type: "array", items: endpointPort },
  },
};

const loadBalancer: SchemaNode = {
  type: "object",
  properties: {
    ingress: {
      type: "array",
      items: {
        type: "object",
        properties: {
          ip: str,
          hostname: str,
          ipMode: str,
          ports: {
            type: "array",
            items: {
              type: "object",
              required: ["port", "protocol"],
              properties: { port: int, protocol: str, error: str },
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
    observedGeneration: { type: "integer", format: "int64" },
    conditions: {
      type: "array",
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
      items: {
        type: "object",
        required: ["port", "readyEndpoints", "totalEndpoints"],
        properties: { name: str, port: int, readyEndpoints: int, totalEndpoints: int },
      },
    },
    endpoints: {
      type: "object",
      required: ["total", "ready", "notReady", "terminating", "truncated", "list"],
      properties: {
        total: int,
        ready: int,
        notReady: int,
        terminating: int,
        truncated: { type: "boolean" },
        list: { type: "array", items: endpoint },
      },
    },
    clusterIP: str,
    clusterIPs: { type: "array", items: str },
    loadBalancer,
  },
};
