/**
 * Invalid manifests, each with ONE defect and the field the rejection must name. Shared by the unit test of
 * `validate()` and the integration test that sends them to a real API server.
 */
import {
  grpcProbe,
  httpProbe,
  type ProbeSpec,
  postgresProbe,
  type ServiceWithHealthchecksSpec,
  serviceWithHealthchecks,
  tcpProbe,
} from "../../src/index.js";

/** A valid spec to spoil: one named port and one TCP probe on it. */
export function aSpec(overrides: Partial<ServiceWithHealthchecksSpec> = {}): ServiceWithHealthchecksSpec {
  return {
    selector: { app: "web" },
    ports: [{ name: "http", port: 80, targetPort: 8080 }],
    healthcheck: { probes: [tcpProbe(8080)] },
    ...overrides,
  };
}

/** A valid spec whose only probe is `probe`. */
function withProbe(probe: unknown): ServiceWithHealthchecksSpec {
  return aSpec({ healthcheck: { probes: [probe as ProbeSpec] } });
}

export interface InvalidCase {
  name: string;
  /** Field the rejection must name (the path `validate()` reports and the server's message contains). */
  field: string;
  manifest: object;
}

const swh = (spec: unknown, name = "bad") =>
  serviceWithHealthchecks({ name }, spec as ServiceWithHealthchecksSpec);

const probe0 = "spec.healthcheck.probes[0]";

/** At least 20 invalid manifests; every one must be rejected by the API server and by `validate()`. */
export const INVALID_CASES: readonly InvalidCase[] = [
  {
    name: "mode TCP with an http sub-object",
    field: probe0,
    manifest: swh(withProbe({ mode: "TCP", http: { targetPort: 80 } })),
  },
  { name: "mode HTTP without any sub-object", field: probe0, manifest: swh(withProbe({ mode: "HTTP" })) },
  {
    name: "mode PostgreSQL with tcp and postgreSQL",
    field: probe0,
    manifest: swh(
      withProbe({ mode: "PostgreSQL", tcp: { targetPort: 5432 }, postgreSQL: { targetPort: 5432 } }),
    ),
  },
  {
    name: "mode GRPC with an http sub-object instead of grpc",
    field: probe0,
    manifest: swh(withProbe({ mode: "GRPC", http: { targetPort: 50051 } })),
  },
  {
    name: "mode GRPC with grpc and tcp",
    field: probe0,
    manifest: swh(withProbe({ mode: "GRPC", grpc: { targetPort: 50051 }, tcp: { targetPort: 50051 } })),
  },
  {
    name: "mode TCP with a grpc sub-object",
    field: probe0,
    manifest: swh(withProbe({ mode: "TCP", tcp: { targetPort: 80 }, grpc: { targetPort: 80 } })),
  },
  {
    name: "grpc probe port name with uppercase",
    field: `${probe0}.grpc.targetPort`,
    manifest: swh(withProbe(grpcProbe("GRPC"))),
  },
  {
    name: "grpc service name over 1024 characters",
    field: `${probe0}.grpc.service`,
    manifest: swh(withProbe(grpcProbe(50051, { service: "s".repeat(1025) }))),
  },
  {
    name: "grpc host with a path",
    field: `${probe0}.grpc.host`,
    manifest: swh(withProbe(grpcProbe(50051, { host: "orders.internal/health" }))),
  },
  {
    name: "unknown mode",
    field: `${probe0}.mode`,
    manifest: swh(withProbe({ mode: "UDP", tcp: { targetPort: 53 } })),
  },
  {
    name: "an HTTP body match on a HEAD request",
    field: `${probe0}.http`,
    manifest: swh(withProbe(httpProbe(80, { method: "HEAD", body: { contains: "ok" } }))),
  },
  {
    name: "an HTTP body match with neither contains nor notContains",
    field: `${probe0}.http.body`,
    manifest: swh(withProbe(httpProbe(80, { body: {} }))),
  },
  {
    name: "a TCP expect naming a variable that is not the pod's",
    field: `${probe0}.tcp.expect`,
    manifest: swh(withProbe(tcpProbe(6379, { send: "ROLE\r\n", expect: "$(HOSTNAME)" }))),
  },
  {
    name: "a TCP send that opens a reference it does not close",
    field: `${probe0}.tcp.send`,
    manifest: swh(withProbe(tcpProbe(6379, { send: "HELLO $(POD_NAME" }))),
  },
  {
    name: "an empty TCP expect",
    field: `${probe0}.tcp.expect`,
    manifest: swh(withProbe(tcpProbe(6379, { expect: "" }))),
  },
  {
    name: "an HTTP response header expectation with an unknown variable",
    field: `${probe0}.http.responseHeaders[0].value`,
    manifest: swh(withProbe(httpProbe(80, { responseHeaders: [{ name: "X-Pod", value: "$(POD_IP)" }] }))),
  },
  {
    name: "an HTTP response header name that is no token",
    field: `${probe0}.http.responseHeaders[0].name`,
    manifest: swh(withProbe(httpProbe(80, { responseHeaders: [{ name: "X Pod", value: "a" }] }))),
  },
  {
    name: "an HTTP body expectation with an unknown variable",
    field: `${probe0}.http.body.contains`,
    manifest: swh(withProbe(httpProbe(80, { body: { contains: "I am $(POD)" } }))),
  },
  {
    name: "a probe timeout longer than transitionPeriodSeconds",
    field: "spec.healthcheck.transitionPeriodSeconds",
    manifest: swh(
      aSpec({ healthcheck: { transitionPeriodSeconds: 1, probes: [tcpProbe(8080, { timeoutSeconds: 2 })] } }),
    ),
  },
  {
    name: "downPeriodSeconds 0",
    field: "spec.healthcheck.downPeriodSeconds",
    manifest: swh(aSpec({ healthcheck: { downPeriodSeconds: 0, probes: [tcpProbe(8080)] } })),
  },
  {
    name: "failOpen healthyBelowPercent 0",
    field: "spec.healthcheck.failOpen.healthyBelowPercent",
    manifest: swh(aSpec({ healthcheck: { failOpen: { healthyBelowPercent: 0 }, probes: [tcpProbe(8080)] } })),
  },
  {
    name: "failOpen healthyBelowPercent 101",
    field: "spec.healthcheck.failOpen.healthyBelowPercent",
    manifest: swh(
      aSpec({ healthcheck: { failOpen: { healthyBelowPercent: 101 }, probes: [tcpProbe(8080)] } }),
    ),
  },
  { name: "missing mode", field: `${probe0}.mode`, manifest: swh(withProbe({ tcp: { targetPort: 53 } })) },
  { name: "probe port 0", field: `${probe0}.tcp.targetPort`, manifest: swh(withProbe(tcpProbe(0))) },
  { name: "probe port 65536", field: `${probe0}.tcp.targetPort`, manifest: swh(withProbe(tcpProbe(65536))) },
  {
    name: "probe port name with uppercase",
    field: `${probe0}.http.targetPort`,
    manifest: swh(withProbe(httpProbe("Web"))),
  },
  {
    name: "probe port name with a double hyphen",
    field: `${probe0}.tcp.targetPort`,
    manifest: swh(withProbe(tcpProbe("smtp--tls"))),
  },
  {
    name: "probe port name without a letter",
    field: `${probe0}.tcp.targetPort`,
    manifest: swh(withProbe(tcpProbe("80-80"))),
  },
  {
    name: "probe port name longer than 15",
    field: `${probe0}.tcp.targetPort`,
    manifest: swh(withProbe(tcpProbe("averyveryverylongname"))),
  },
  {
    name: "probe port name with a trailing hyphen",
    field: `${probe0}.postgreSQL.targetPort`,
    manifest: swh(withProbe(postgresProbe("pg-"))),
  },
  {
    name: "http path without leading slash",
    field: `${probe0}.http.path`,
    manifest: swh(withProbe(httpProbe(8080, { path: "healthz" }))),
  },
  {
    name: "status code 99",
    field: `${probe0}.http.code[0]`,
    manifest: swh(withProbe(httpProbe(8080, { code: [99] }))),
  },
  {
    name: "status code 600",
    field: `${probe0}.http.code[1]`,
    manifest: swh(withProbe(httpProbe(8080, { code: [200, 600] }))),
  },
  {
    name: "unknown http scheme",
    field: `${probe0}.http.scheme`,
    manifest: swh(withProbe({ mode: "HTTP", http: { targetPort: 80, scheme: "FTP" } })),
  },
  {
    name: "unknown http method",
    field: `${probe0}.http.method`,
    manifest: swh(withProbe({ mode: "HTTP", http: { targetPort: 80, method: "POST" } })),
  },
  {
    name: "timeoutSeconds 0",
    field: `${probe0}.timeoutSeconds`,
    manifest: swh(withProbe(tcpProbe(80, { timeoutSeconds: 0 }))),
  },
  {
    name: "timeoutSeconds above 60",
    field: `${probe0}.timeoutSeconds`,
    manifest: swh(
      aSpec({ healthcheck: { periodSeconds: 3600, probes: [tcpProbe(80, { timeoutSeconds: 3600 })] } }),
    ),
  },
  {
    name: "timeoutSeconds above periodSeconds",
    field: "spec.healthcheck.probes",
    manifest: swh(
      aSpec({ healthcheck: { periodSeconds: 5, probes: [tcpProbe(80, { timeoutSeconds: 6 })] } }),
    ),
  },
  {
    name: "timeoutSeconds above the default periodSeconds of 10",
    field: "spec.healthcheck.probes",
    manifest: swh(aSpec({ healthcheck: { probes: [httpProbe(8080, { timeoutSeconds: 11 })] } })),
  },
  {
    name: "periodSeconds 1 under a probe with timeoutSeconds 2",
    field: "spec.healthcheck.probes",
    manifest: swh(
      aSpec({
        healthcheck: { periodSeconds: 1, probes: [tcpProbe(80), tcpProbe(80, { timeoutSeconds: 2 })] },
      }),
    ),
  },
  {
    name: "successThreshold 0",
    field: `${probe0}.successThreshold`,
    manifest: swh(withProbe(tcpProbe(80, { successThreshold: 0 }))),
  },
  {
    name: "failureThreshold -1",
    field: `${probe0}.failureThreshold`,
    manifest: swh(withProbe(tcpProbe(80, { failureThreshold: -1 }))),
  },
  {
    name: "initialDelaySeconds -1",
    field: "spec.healthcheck.initialDelaySeconds",
    manifest: swh(aSpec({ healthcheck: { initialDelaySeconds: -1 } })),
  },
  {
    name: "initialDelaySeconds above 108000",
    field: "spec.healthcheck.initialDelaySeconds",
    manifest: swh(aSpec({ healthcheck: { initialDelaySeconds: 108001 } })),
  },
  {
    name: "periodSeconds 0",
    field: "spec.healthcheck.periodSeconds",
    manifest: swh(aSpec({ healthcheck: { periodSeconds: 0 } })),
  },
  {
    name: "periodSeconds above 108000",
    field: "spec.healthcheck.periodSeconds",
    manifest: swh(aSpec({ healthcheck: { periodSeconds: 200000 } })),
  },
  {
    name: "empty PostgreSQL query",
    field: `${probe0}.postgreSQL.query`,
    manifest: swh(withProbe(postgresProbe(5432, { query: "" }))),
  },
  {
    name: "authSecretName not a DNS name",
    field: `${probe0}.postgreSQL.authSecretName`,
    manifest: swh(withProbe(postgresProbe(5432, { authSecretName: "My_Secret" }))),
  },
  {
    name: "http header name with a space",
    field: `${probe0}.http.httpHeaders[0].name`,
    manifest: swh(withProbe(httpProbe(80, { httpHeaders: [{ name: "X Bad", value: "1" }] }))),
  },
  {
    name: "service port 0",
    field: "spec.ports[0].port",
    manifest: swh(aSpec({ ports: [{ name: "http", port: 0 }] })),
  },
  {
    name: "service port without port",
    field: "spec.ports[0].port",
    manifest: swh(aSpec({ ports: [{ name: "http" } as never] })),
  },
  {
    name: "service targetPort name invalid",
    field: "spec.ports[0].targetPort",
    manifest: swh(aSpec({ ports: [{ name: "http", port: 80, targetPort: "-http" }] })),
  },
  {
    name: "unknown protocol",
    field: "spec.ports[0].protocol",
    manifest: swh(aSpec({ ports: [{ name: "http", port: 80, protocol: "ICMP" as never }] })),
  },
  {
    name: "two ports, one unnamed",
    field: "spec.ports",
    manifest: swh(aSpec({ ports: [{ name: "http", port: 80 }, { port: 81 }] })),
  },
  {
    name: "two ports with the same name",
    field: "spec.ports",
    manifest: swh(
      aSpec({
        ports: [
          { name: "http", port: 80 },
          { name: "http", port: 81 },
        ],
      }),
    ),
  },
  {
    name: "two ports with the same port and protocol",
    field: "spec.ports[1]",
    manifest: swh(
      aSpec({
        ports: [
          { name: "a", port: 80 },
          { name: "b", port: 80 },
        ],
      }),
    ),
  },
  {
    name: "port name not a DNS label",
    field: "spec.ports[0].name",
    manifest: swh(aSpec({ ports: [{ name: "Http", port: 80 }] })),
  },
  { name: "unknown service type", field: "spec.type", manifest: swh(aSpec({ type: "Ingress" as never })) },
  {
    name: "ExternalName without externalName",
    field: "spec.externalName",
    manifest: swh(aSpec({ type: "ExternalName" })),
  },
  {
    name: "unknown externalTrafficPolicy",
    field: "spec.externalTrafficPolicy",
    manifest: swh(aSpec({ externalTrafficPolicy: "Global" as never })),
  },
  {
    name: "three IP families",
    field: "spec.ipFamilies",
    manifest: swh(aSpec({ ipFamilies: ["IPv4", "IPv6", "IPv4"] })),
  },
  {
    name: "nodePort on a ClusterIP Service",
    field: "spec.ports",
    manifest: swh(aSpec({ ports: [{ name: "http", port: 80, nodePort: 30080 }] })),
  },
  {
    name: "headless LoadBalancer",
    field: "spec.clusterIP",
    manifest: swh(aSpec({ type: "LoadBalancer", clusterIP: "None" })),
  },
  {
    name: "the same IP family twice",
    field: "spec.ipFamilies",
    manifest: swh(aSpec({ ipFamilies: ["IPv6", "IPv6"] })),
  },
  {
    name: "selector value not a string",
    field: "spec.selector.app",
    manifest: swh(aSpec({ selector: { app: 1 as never } })),
  },
  {
    name: "session affinity timeout 0",
    field: "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
    manifest: swh(aSpec({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } })),
  },
  { name: "name that cannot name a Service", field: "metadata.name", manifest: swh(aSpec(), "1st-balancer") },
];
