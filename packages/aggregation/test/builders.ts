/** Small builders for tests: every value a test does not name is a plain, valid default. */
import type { DefaultedProbeSpec, DefaultedServicePort } from "@swh/crd-types";
import type { PodInfo, ProbeState, ProbeTarget, SwhInput } from "../src/index.js";
import { planProbeTargets } from "../src/index.js";

export function aPod(overrides: Partial<PodInfo> = {}): PodInfo {
  return {
    name: "web-1",
    namespace: "default",
    uid: `uid-${overrides.name ?? "web-1"}`,
    nodeName: "node-a",
    ips: ["10.244.1.1"],
    phase: "Running",
    ready: true,
    terminating: false,
    labels: { app: "web" },
    containerPorts: [
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "metrics", containerPort: 9090, protocol: "TCP" },
    ],
    eligibleSince: "2026-01-01T00:00:00Z",
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

export function aGrpcProbe(targetPort: number | string, service?: string): DefaultedProbeSpec {
  return {
    mode: "GRPC",
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
    grpc: {
      targetPort,
      ...(service === undefined ? {} : { service }),
      tls: false,
      insecureSkipTLSVerify: false,
    },
  };
}

export interface SwhOverrides extends Partial<Omit<SwhInput, "spec">> {
  spec?: Partial<SwhInput["spec"]>;
  probes?: DefaultedProbeSpec[];
}

export function aSwh(overrides: SwhOverrides = {}): SwhInput {
  const { spec, probes, ...meta } = overrides;
  return {
    name: "web",
    namespace: "default",
    uid: "swh-uid",
    ...meta,
    spec: {
      type: "ClusterIP",
      selector: { app: "web" },
      ports: [aPort()],
      healthcheck: { initialDelaySeconds: 10, periodSeconds: 10, probes: probes ?? [] },
      ...spec,
    },
  };
}

/** Recursively freezes a value so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** Probe states for every target of `swhs` over `pods`, decided per target by `decide` (default: passing). */
export function statesFor(
  swhs: readonly SwhInput[],
  pods: readonly PodInfo[],
  decide: (target: ProbeTarget) => ProbeState = () => ({ passing: true }),
): ReadonlyMap<string, ProbeState> {
  return deepFreeze(new Map(planProbeTargets(swhs, pods).map((t) => [t.id, decide(t)])));
}

export const noZone = { zoneOf: () => undefined };
