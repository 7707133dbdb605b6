/** Small builders for the agent's unit tests: every value a test does not name is a plain, valid default. */
import type { PodInfo } from "@swh/aggregation";
import type { DefaultedProbeSpec, ServiceWithHealthchecksSpec } from "@swh/crd-types";
import { aPod as aggregationPod, aPort } from "../../../packages/aggregation/test/builders.js";
import type { SwhSlicesObject } from "./support/world.js";

// Ports and probes are built as in the aggregation's tests; pods and SWH objects are the agent's own.
export { anHttpProbe, aPort, aTcpProbe } from "../../../packages/aggregation/test/builders.js";

export const NODE = "node-a";

/** A pod as the agent's tests use it: aggregation's pod in namespace `shop`, with an `admin` port. */
export function aPod(overrides: Partial<PodInfo> = {}): PodInfo {
  return aggregationPod({
    namespace: "shop",
    containerPorts: [
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "admin", containerPort: 9090, protocol: "TCP" },
    ],
    eligibleSince: "2026-01-01T00:00:00.000Z",
    ...overrides,
  });
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
