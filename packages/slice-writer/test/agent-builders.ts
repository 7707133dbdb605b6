/** Small builders for the agent's unit tests: every value a test does not name is a plain, valid default. */
import type { PodInfo } from "@swh/aggregation";
import type { DefaultedProbeSpec, DefaultedServicePort, ServiceWithHealthchecksSpec } from "@swh/crd-types";
import type { SwhSlicesObject } from "../src/index.js";

export const NODE = "node-a";

export function aPod(overrides: Partial<PodInfo> = {}): PodInfo {
  const name = overrides.name ?? "web-1";
  return {
    name,
    namespace: "shop",
    uid: `uid-${name}`,
    nodeName: NODE,
    ips: ["10.244.1.1"],
    phase: "Running",
    ready: true,
    terminating: false,
    labels: { app: "web" },
    containerPorts: [
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "admin", containerPort: 9090, protocol: "TCP" },
    ],
    eligibleSince: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export function aPort(overrides: Partial<DefaultedServicePort> = {}): DefaultedServicePort {
  return { name: "http", protocol: "TCP", port: 80, targetPort: 8080, ...overrides };
}

export function aTcpProbe(
  targetPort: number | string,
  overrides: Partial<DefaultedProbeSpec> = {},
): DefaultedProbeSpec {
  return {
    mode: "TCP",
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
    tcp: { targetPort },
    ...overrides,
  };
}

export function anHttpProbe(targetPort: number | string, path = "/healthz"): DefaultedProbeSpec {
  return {
    mode: "HTTP",
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
    http: { targetPort, path, scheme: "HTTP", method: "GET", insecureSkipTLSVerify: false },
  };
}

export function aPostgresProbe(targetPort: number, authSecretName?: string): DefaultedProbeSpec {
  return {
    mode: "PostgreSQL",
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
    postgreSQL: { targetPort, query: "select 1", ...(authSecretName ? { authSecretName } : {}) },
  };
}

/** An SWH object as the informer holds it (defaulted by the API server). */
export function aSwhObject(
  overrides: {
    name?: string;
    uid?: string;
    probes?: DefaultedProbeSpec[];
    spec?: ServiceWithHealthchecksSpec;
  } = {},
): SwhSlicesObject {
  const name = overrides.name ?? "web";
  return {
    apiVersion: "network.deckhouse.io/v1alpha1",
    kind: "ServiceWithHealthchecks",
    metadata: { name, namespace: "shop", uid: overrides.uid ?? `uid-${name}` },
    spec: {
      type: "ClusterIP",
      selector: { app: "web" },
      ports: [aPort()],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: overrides.probes ?? [] },
      ...overrides.spec,
    },
  };
}
