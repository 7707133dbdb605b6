/**
 * Boundary mutations: for each field that has a rule, the values on both sides of it (bounds ±1, good and bad
 * names, wrong types, null). Applied one at a time to random valid specs, they check that `validate()` and the
 * API server agree on accept/reject at every boundary, beyond the hand-written table.
 */
import { grpcProbe, httpProbe, postgresProbe, type ServiceWithHealthchecksSpec } from "../../src/index.js";

type Path = readonly (string | number)[];

const PORT = [0, 1, 65535, 65536, -1, "80", 1.5, null];
const TARGET_PORT = [
  0,
  1,
  65535,
  65536,
  "a",
  "web",
  "Web",
  "a--b",
  "-a",
  "a-",
  "80",
  "abcdefghijklmno",
  "abcdefghijklmnop",
  "",
  1.5,
  true,
  null,
];
const AT_LEAST_ONE = [0, 1, -1, 1000, "1", null];
const P = ["healthcheck", "probes"] as const;

/** Every (path under spec, value) pair to try; paths refer to a spec prepared by `prepareSpec`. */
const EDGES: readonly [Path, readonly unknown[]][] = [
  [["type"], ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName", "Ingress", null, 1]],
  [["clusterIP"], ["None", "", "10.96.0.5", "x".repeat(45), "x".repeat(46), null]],
  [["externalName"], ["", "db.example.com", "x".repeat(253), "x".repeat(254), null]],
  [
    ["ipFamilies"],
    [[], ["IPv4"], ["IPv4", "IPv6"], ["IPv6", "IPv6"], ["IPv4", "IPv6", "IPv4"], ["IPX"], "IPv4", null],
  ],
  [
    ["selector", "app"],
    ["", "a", "x".repeat(64), 1, null, true],
  ],
  [
    ["sessionAffinityConfig"],
    [
      { clientIP: { timeoutSeconds: 0 } },
      { clientIP: { timeoutSeconds: 86400 } },
      { clientIP: { timeoutSeconds: 86401 } },
      null,
    ],
  ],
  [
    ["ports", 0, "name"],
    ["", "a", "A", "a-", "-a", "a".repeat(63), "a".repeat(64), "1", null, 5],
  ],
  [["ports", 0, "port"], PORT],
  [["ports", 0, "nodePort"], PORT],
  [
    ["ports", 0, "protocol"],
    ["TCP", "UDP", "SCTP", "ICMP", "", null, 6],
  ],
  [["ports", 0, "targetPort"], TARGET_PORT],
  [
    ["ports", 1],
    [
      { name: "q", port: 80 },
      { name: "q", port: 80, protocol: "UDP" },
      { port: 81 },
      { name: "p", port: 81 },
      { name: "q", port: 81 },
      "x",
      null,
    ],
  ],
  [
    ["healthcheck", "initialDelaySeconds"],
    [-1, 0, 108000, 108001, 1.5, "10", null],
  ],
  [
    ["healthcheck", "periodSeconds"],
    [0, 1, 2, 59, 60, 108000, 108001, null],
  ],
  [
    [...P, 0, "mode"],
    ["TCP", "HTTP", "PostgreSQL", "GRPC", "UDP", "", null],
  ],
  [[...P, 0, "timeoutSeconds"], AT_LEAST_ONE],
  // Around the bounds: at most 60, and at most the period (random, or the default 10).
  [
    [...P, 1, "timeoutSeconds"],
    [9, 10, 11, 59, 60, 61, 3600],
  ],
  [[...P, 0, "successThreshold"], AT_LEAST_ONE],
  [[...P, 0, "failureThreshold"], AT_LEAST_ONE],
  [
    [...P, 0, "tcp"],
    [{ targetPort: 80 }, {}, null, "x"],
  ],
  [
    [...P, 0, "http"],
    [{ targetPort: 80 }, { targetPort: 80, path: "x" }, {}, null],
  ],
  [
    [...P, 0, "postgreSQL"],
    [{ targetPort: 5432 }, {}, null],
  ],
  [
    [...P, 0, "grpc"],
    [{ targetPort: 50051 }, {}, null],
  ],
  [[...P, 1, "http", "targetPort"], TARGET_PORT],
  [
    [...P, 1, "http", "path"],
    ["/", "", "x", "/x", `/${"x".repeat(2047)}`, `/${"x".repeat(2048)}`, null],
  ],
  [
    [...P, 1, "http", "code"],
    [[], [100], [599], [99], [600], [200, "x"], Array(100).fill(200), Array(101).fill(200), null],
  ],
  [
    [...P, 1, "http", "scheme"],
    ["HTTP", "HTTPS", "http", null],
  ],
  [
    [...P, 1, "http", "method"],
    ["GET", "HEAD", "POST", null],
  ],
  [
    [...P, 1, "http", "httpHeaders"],
    [[{ name: "X-A", value: "1" }], [{ name: "X A", value: "1" }], [{ name: "X" }], [{ value: "1" }], null],
  ],
  [
    [...P, 1, "http", "body"],
    [
      { contains: "ok" },
      { notContains: "error" },
      { contains: "a", notContains: "b" },
      {},
      { contains: "" },
      { contains: "x".repeat(1024) },
      { notContains: "x".repeat(1025) },
      null,
    ],
  ],
  [[...P, 2, "postgreSQL", "targetPort"], TARGET_PORT],
  [
    [...P, 2, "postgreSQL", "query"],
    ["", "select 1", null],
  ],
  [
    [...P, 2, "postgreSQL", "authSecretName"],
    ["a", "A", "a.b", "-a", "x".repeat(253), "x".repeat(254), null],
  ],
  [[...P, 3, "grpc", "targetPort"], TARGET_PORT],
  [
    [...P, 3, "grpc", "service"],
    ["", "grpc.health.v1.Health", "s".repeat(1024), "s".repeat(1025), 1, null],
  ],
  [
    [...P, 3, "grpc", "host"],
    ["orders.internal", "orders.internal:8443", "[fd00::1]:50051", "10.0.0.1", "a b", "u@h", "h/p", "[x", ""],
  ],
  [
    [...P, 3, "grpc", "tls"],
    [true, false, "true", null],
  ],
];

/** One mutation: set `path` (under spec) to `value`. */
export interface Mutation {
  path: Path;
  value: unknown;
}

/** All boundary mutations, one per (field, edge value). */
export const MUTATIONS: readonly Mutation[] = EDGES.flatMap(([path, values]) =>
  values.map((value) => ({ path, value })),
);

/** Gives a random valid spec what the mutation paths expect: a port, and probes [any, HTTP, PostgreSQL, GRPC]. */
function prepareSpec(spec: ServiceWithHealthchecksSpec): Record<string, unknown> {
  const probes = [
    ...(spec.healthcheck?.probes ?? []).slice(0, 1),
    httpProbe(8080),
    postgresProbe(5432),
    grpcProbe(50051),
  ];
  if (probes.length < 4) probes.unshift(httpProbe(9090));
  const ports = spec.ports?.length ? spec.ports.slice(0, 1) : [{ name: "p", port: 80 }];
  return structuredClone({ ...spec, ports, healthcheck: { ...spec.healthcheck, probes } });
}

/** Returns a copy of `spec`, prepared, with `mutation` applied. */
export function applyMutation(
  spec: ServiceWithHealthchecksSpec,
  mutation: Mutation,
): ServiceWithHealthchecksSpec {
  const root = prepareSpec(spec);
  let node = root as Record<string | number, unknown>;
  for (const [i, key] of mutation.path.entries()) {
    if (i === mutation.path.length - 1) {
      node[key] = structuredClone(mutation.value);
      break;
    }
    node[key] ??= {};
    node = node[key] as Record<string | number, unknown>;
  }
  return root as ServiceWithHealthchecksSpec;
}
