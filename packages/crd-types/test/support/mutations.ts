/**
 * fast-check arbitrary of specs that are often invalid: a valid spec with one field overwritten by an edge value
 * (bounds ±1, bad names, wrong types, null). Used to check that `validate()` and the API server agree on
 * accept/reject, beyond the hand-written table.
 */
import fc from "fast-check";
import { type ProbeSpec, type ServiceWithHealthchecksSpec, tcpProbe } from "../../src/index.js";
import { probeArb, specArb } from "./arbitraries.js";

const EDGE_VALUES: readonly unknown[] = [
  0,
  -1,
  1,
  15,
  99,
  100,
  599,
  600,
  65535,
  65536,
  108000,
  108001,
  1.5,
  "",
  "a",
  "A",
  "a-b",
  "a--b",
  "-a",
  "a-",
  "80",
  "web",
  "averyveryverylongname",
  "abcdefghijklmno",
  "/",
  "/healthz",
  "healthz",
  "TCP",
  "UDP",
  "ICMP",
  "HTTP",
  "HTTPS",
  "PostgreSQL",
  "GET",
  "POST",
  "ClusterIP",
  "LoadBalancer",
  ["IPv4", "IPv4"],
  ["IPv4", "IPv6"],
  "ExternalName",
  "Local",
  "None",
  true,
  false,
  null,
  [],
  {},
  [200],
  [700],
];

/** Paths (from spec) that a mutation may overwrite; the spec is given a probe and a port first. */
const PATHS: readonly (readonly (string | number)[])[] = [
  ["type"],
  ["clusterIP"],
  ["ports", 0, "nodePort"],
  ["ipFamilies"],
  ["externalName"],
  ["selector", "app"],
  ["sessionAffinityConfig", "clientIP", "timeoutSeconds"],
  ["ports", 0, "name"],
  ["ports", 0, "port"],
  ["ports", 0, "protocol"],
  ["ports", 0, "targetPort"],
  ["ports", 1],
  ["healthcheck", "initialDelaySeconds"],
  ["healthcheck", "periodSeconds"],
  ["healthcheck", "probes", 0, "mode"],
  ["healthcheck", "probes", 0, "timeoutSeconds"],
  ["healthcheck", "probes", 0, "successThreshold"],
  ["healthcheck", "probes", 0, "failureThreshold"],
  ["healthcheck", "probes", 0, "tcp"],
  ["healthcheck", "probes", 0, "http"],
  ["healthcheck", "probes", 0, "tcp", "targetPort"],
  ["healthcheck", "probes", 0, "http", "targetPort"],
  ["healthcheck", "probes", 0, "http", "path"],
  ["healthcheck", "probes", 0, "http", "code"],
  ["healthcheck", "probes", 0, "http", "scheme"],
  ["healthcheck", "probes", 0, "postgreSQL", "query"],
];

function setPath(target: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) {
      node[key] = structuredClone(value);
      return;
    }
    const next = node[key];
    if (next === null || typeof next !== "object") return; // the path does not exist in this spec: no change
    node = next as Record<string | number, unknown>;
  }
}

/** A spec with one probe and one port, then one field set to an edge value. */
export const mutatedSpecArb: fc.Arbitrary<ServiceWithHealthchecksSpec> = fc
  .tuple(specArb, probeArb, fc.constantFrom(...PATHS), fc.constantFrom(...EDGE_VALUES))
  .map(([spec, probe, path, value]) => {
    const probes: ProbeSpec[] = [probe, tcpProbe(1)];
    const mutated = structuredClone({
      ...spec,
      ports: spec.ports?.length ? spec.ports : [{ name: "p", port: 80 }],
      healthcheck: { ...spec.healthcheck, probes },
    }) as unknown as Record<string, unknown>;
    setPath(mutated, path, value);
    return mutated as ServiceWithHealthchecksSpec;
  });
