/**
 * The TypeScript types (src/types.ts) and the schema name exactly the same fields. `Complete<T>` makes every field
 * required, so the compiler forces the sample objects below to list every field of the types; the test then
 * compares their keys with the schema's properties, level by level.
 */
import { describe, expect, it } from "vitest";
import type {
  GrpcProbeSpec,
  HttpBodyMatch,
  HttpProbeSpec,
  PostgresProbeSpec,
  ProbeSpec,
  ServicePort,
  ServiceWithHealthchecksSpec,
  ServiceWithHealthchecksStatus,
  TcpProbeSpec,
} from "../src/index.js";
import type { SchemaNode } from "../src/internal/schema-node.js";
import { serviceWithHealthchecksSchema, specSchema } from "../src/schema.js";

type Complete<T> = { [K in keyof T]-?: unknown };

const spec: Complete<ServiceWithHealthchecksSpec> = {
  ports: 0,
  selector: 0,
  type: 0,
  clusterIP: 0,
  clusterIPs: 0,
  externalIPs: 0,
  externalName: 0,
  externalTrafficPolicy: 0,
  internalTrafficPolicy: 0,
  healthCheckNodePort: 0,
  ipFamilies: 0,
  ipFamilyPolicy: 0,
  loadBalancerClass: 0,
  loadBalancerIP: 0,
  loadBalancerSourceRanges: 0,
  allocateLoadBalancerNodePorts: 0,
  publishNotReadyAddresses: 0,
  sessionAffinity: 0,
  sessionAffinityConfig: 0,
  trafficDistribution: 0,
  healthcheck: 0,
};
const port: Complete<ServicePort> = {
  name: 0,
  protocol: 0,
  port: 0,
  targetPort: 0,
  nodePort: 0,
  appProtocol: 0,
};
const probe: Complete<ProbeSpec> = {
  mode: 0,
  timeoutSeconds: 0,
  successThreshold: 0,
  failureThreshold: 0,
  tcp: 0,
  http: 0,
  postgreSQL: 0,
  grpc: 0,
};
const http: Complete<HttpProbeSpec> = {
  targetPort: 0,
  path: 0,
  host: 0,
  scheme: 0,
  method: 0,
  httpHeaders: 0,
  insecureSkipTLSVerify: 0,
  caCert: 0,
  code: 0,
  body: 0,
  responseHeaders: 0,
};
const tcp: Complete<TcpProbeSpec> = { targetPort: 0, send: 0, expect: 0 };
const body: Complete<HttpBodyMatch> = { contains: 0, notContains: 0 };
const postgres: Complete<PostgresProbeSpec> = { targetPort: 0, dbName: 0, query: 0, authSecretName: 0 };
const grpc: Complete<GrpcProbeSpec> = {
  targetPort: 0,
  service: 0,
  host: 0,
  tls: 0,
  insecureSkipTLSVerify: 0,
  caCert: 0,
};
const status: Complete<ServiceWithHealthchecksStatus> = {
  observedGeneration: 0,
  readySummary: 0,
  portsSummary: 0,
  externalIPSummary: 0,
  conditions: 0,
  ports: 0,
  endpoints: 0,
  clusterIP: 0,
  clusterIPs: 0,
  loadBalancer: 0,
};

const keys = (node: SchemaNode | undefined) => Object.keys(node?.properties ?? {}).sort();
const healthcheck = specSchema.properties?.healthcheck;
const probeNode = healthcheck?.properties?.probes?.items;

describe("types and schema", () => {
  it.each([
    ["spec", spec, specSchema],
    ["spec.ports[]", port, specSchema.properties?.ports?.items],
    ["spec.healthcheck.probes[]", probe, probeNode],
    ["…probes[].tcp", tcp, probeNode?.properties?.tcp],
    ["…probes[].http", http, probeNode?.properties?.http],
    ["…probes[].http.body", body, probeNode?.properties?.http?.properties?.body],
    ["…probes[].postgreSQL", postgres, probeNode?.properties?.postgreSQL],
    ["…probes[].grpc", grpc, probeNode?.properties?.grpc],
    ["status", status, serviceWithHealthchecksSchema.properties?.status],
  ] as const)("%s has the same fields in both", (_, sample, node) => {
    expect(keys(node)).toEqual(Object.keys(sample).sort());
  });
});
