/**
 * fast-check arbitraries of VALID ServiceWithHealthchecks specs: every optional field is sometimes present and
 * sometimes absent, so defaulting is exercised at every level. Shared by the unit properties and the integration
 * property that compares the API server's defaulting with `applyDefaults()`.
 */
import fc from "fast-check";
import type {
  GrpcProbeSpec,
  HealthcheckSpec,
  HttpProbeSpec,
  IntOrString,
  PostgresProbeSpec,
  ProbeSpec,
  ServicePort,
  ServiceWithHealthchecksSpec,
} from "../../src/index.js";
import {
  DEFAULT_PERIOD_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
} from "../../src/internal/schema-healthcheck.js";

const ianaName = fc.stringMatching(/^[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6})?$/);
const portNumber = fc.integer({ min: 1, max: 65535 });
const targetPort: fc.Arbitrary<IntOrString> = fc.oneof(portNumber, ianaName);
const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);

const timing = {
  timeoutSeconds: fc.integer({ min: 1, max: MAX_TIMEOUT_SECONDS }),
  successThreshold: fc.integer({ min: 1, max: 20 }),
  failureThreshold: fc.integer({ min: 1, max: 20 }),
};
const withTiming = <K extends string, V>(key: K, sub: fc.Arbitrary<V>) =>
  fc.record({ ...timing, [key]: sub } as { [P in K]: fc.Arbitrary<V> } & typeof timing, {
    requiredKeys: [key] as never[],
  });

const tcpProbe = withTiming("tcp", fc.record({ targetPort })).map((p): ProbeSpec => ({ mode: "TCP", ...p }));

const httpSub: fc.Arbitrary<HttpProbeSpec> = fc.record(
  {
    targetPort,
    path: fc.stringMatching(/^\/[a-z0-9/._-]{0,20}$/),
    host: fc.constantFrom("example.com", "db.internal"),
    scheme: fc.constantFrom("HTTP" as const, "HTTPS" as const),
    method: fc.constantFrom("GET" as const, "HEAD" as const),
    httpHeaders: fc.array(
      fc.record({
        name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/),
        value: fc.string({ maxLength: 10 }),
      }),
      { maxLength: 3 },
    ),
    insecureSkipTLSVerify: fc.boolean(),
    code: fc.array(fc.integer({ min: 100, max: 599 }), { maxLength: 4 }),
  },
  { requiredKeys: ["targetPort"] },
);
const httpProbe = withTiming("http", httpSub).map((p): ProbeSpec => ({ mode: "HTTP", ...p }));

const postgresSub: fc.Arbitrary<PostgresProbeSpec> = fc.record(
  {
    targetPort,
    dbName: dnsLabel,
    query: fc.constantFrom("SELECT 1", "SELECT NOT pg_is_in_recovery()", "select true"),
    authSecretName: dnsLabel,
  },
  { requiredKeys: ["targetPort"] },
);
const postgresProbe = withTiming("postgreSQL", postgresSub).map(
  (p): ProbeSpec => ({ mode: "PostgreSQL", ...p }),
);

const grpcSub: fc.Arbitrary<GrpcProbeSpec> = fc.record(
  {
    targetPort,
    service: fc.constantFrom("", "grpc.health.v1.Health", "shop.v1.Orders"),
    host: fc.constantFrom("example.com", "grpc.internal"),
    tls: fc.boolean(),
    insecureSkipTLSVerify: fc.boolean(),
  },
  { requiredKeys: ["targetPort"] },
);
const grpcProbe = withTiming("grpc", grpcSub).map((p): ProbeSpec => ({ mode: "GRPC", ...p }));

/** A valid probe of any mode. */
const probeArb: fc.Arbitrary<ProbeSpec> = fc.oneof(tcpProbe, httpProbe, postgresProbe, grpcProbe);

/** Valid health checks: no probe's timeout (default 1) above the period (default 10). */
const healthcheckArb: fc.Arbitrary<HealthcheckSpec> = fc
  .record(
    {
      initialDelaySeconds: fc.integer({ min: 0, max: 108000 }),
      periodSeconds: fc.integer({ min: 1, max: 108000 }),
      probes: fc.array(probeArb, { maxLength: 4 }),
    },
    { requiredKeys: [] },
  )
  .map((h) => {
    const period = h.periodSeconds ?? DEFAULT_PERIOD_SECONDS;
    if (h.probes === undefined) return h;
    return {
      ...h,
      probes: h.probes.map((p) =>
        (p.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) <= period ? p : { ...p, timeoutSeconds: period },
      ),
    };
  });

const portArb: fc.Arbitrary<ServicePort & { name: string }> = fc.record(
  {
    name: dnsLabel,
    port: portNumber,
    protocol: fc.constantFrom("TCP" as const, "UDP" as const, "SCTP" as const),
    targetPort,
    appProtocol: fc.constantFrom("http", "kubernetes.io/h2c"),
  },
  { requiredKeys: ["name", "port"] },
);

/** Valid Service ports: unique names (all named when more than one) and unique (port, protocol). */
const portsArb: fc.Arbitrary<ServicePort[]> = fc
  .uniqueArray(portArb, { maxLength: 4, selector: (p) => p.name })
  .filter((ports) => {
    const keys = ports.map((p) => `${p.port}/${p.protocol ?? "TCP"}`);
    return new Set(keys).size === keys.length;
  })
  .chain((ports): fc.Arbitrary<ServicePort[]> => {
    const [only] = ports;
    if (ports.length !== 1 || only === undefined) return fc.constant(ports);
    const { name: _name, ...unnamed } = only;
    return fc.constantFrom<ServicePort[]>([only], [unnamed]);
  });

/** A valid spec (never ExternalName-typed, which needs an externalName). */
export const specArb: fc.Arbitrary<ServiceWithHealthchecksSpec> = fc.record(
  {
    ports: portsArb,
    selector: fc.dictionary(dnsLabel, dnsLabel, { maxKeys: 3 }),
    type: fc.constantFrom("ClusterIP" as const, "NodePort" as const, "LoadBalancer" as const),
    sessionAffinity: fc.constantFrom("None" as const, "ClientIP" as const),
    publishNotReadyAddresses: fc.boolean(),
    internalTrafficPolicy: fc.constantFrom("Cluster" as const, "Local" as const),
    healthcheck: healthcheckArb,
  },
  { requiredKeys: [] },
);
