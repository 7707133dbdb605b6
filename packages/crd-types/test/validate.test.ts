import { describe, expect, it } from "vitest";
import {
  httpProbe,
  isProbeMode,
  postgresProbe,
  serviceWithHealthchecks,
  tcpProbe,
  validate,
} from "../src/index.js";
import { describeSpecIssues } from "../src/validate.js";
import { aSpec, INVALID_CASES } from "./support/invalid-manifests.js";
import { ORIGINAL_MANIFESTS } from "./support/original-manifests.js";

describe("validate", () => {
  it("has at least 20 distinct invalid cases to compare with the API server", () => {
    expect(INVALID_CASES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(INVALID_CASES.map((c) => c.name)).size).toBe(INVALID_CASES.length);
  });

  it.each(INVALID_CASES)("rejects $name, naming $field", ({ manifest, field }) => {
    const issues = validate(manifest);
    expect(issues.map((i) => i.path)).toContain(field);
    for (const issue of issues) expect(issue.message).not.toBe("");
  });

  it.each(ORIGINAL_MANIFESTS)("accepts the original product's manifest $name", ({ objects }) => {
    for (const object of objects) expect(validate(object)).toEqual([]);
  });

  it("accepts the pod identity variables in every text that may name the pod (ADR 0036)", () => {
    const manifest = serviceWithHealthchecks(
      { name: "identity", namespace: "default" },
      aSpec({
        healthcheck: {
          probes: [
            tcpProbe(6379, { send: "HELLO $(POD_NAMESPACE) $(POD_UID)\r\n", expect: "$(POD_NAME)" }),
            httpProbe(8080, {
              responseHeaders: [{ name: "X-Pod-Uid", value: "$(POD_UID)" }],
              body: { contains: "pod $(POD_NAME)", notContains: "not $(POD_NAMESPACE)" },
            }),
          ],
        },
      }),
    );
    expect(validate(manifest)).toEqual([]);
  });

  it("accepts a manifest using every Service field", () => {
    const manifest = serviceWithHealthchecks(
      { name: "full", namespace: "default", labels: { a: "b" } },
      {
        type: "LoadBalancer",
        selector: { app: "db" },
        ports: [
          {
            name: "pg",
            port: 5432,
            targetPort: "postgres",
            protocol: "TCP",
            nodePort: 30432,
            appProtocol: "postgresql",
          },
          { name: "dns", port: 53, protocol: "UDP" },
        ],
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        externalIPs: ["192.168.1.10"],
        externalTrafficPolicy: "Local",
        internalTrafficPolicy: "Cluster",
        healthCheckNodePort: 31000,
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        loadBalancerClass: "example.com/lb",
        loadBalancerIP: "192.168.1.11",
        loadBalancerSourceRanges: ["10.0.0.0/8"],
        allocateLoadBalancerNodePorts: true,
        publishNotReadyAddresses: false,
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        trafficDistribution: "PreferClose",
        healthcheck: {
          initialDelaySeconds: 0,
          periodSeconds: 108000,
          probes: [
            postgresProbe("postgres", { dbName: "app", authSecretName: "pg-creds", query: "select 1" }),
            httpProbe(8080, {
              scheme: "HTTPS",
              host: "db.example.com",
              httpHeaders: [{ name: "X-Probe", value: "1" }],
              code: [100, 599],
              insecureSkipTLSVerify: true,
            }),
            tcpProbe(53, { timeoutSeconds: 5, successThreshold: 2, failureThreshold: 10 }),
          ],
        },
      },
    );
    expect(validate(manifest)).toEqual([]);
  });

  it("names apiVersion and kind when they are wrong", () => {
    const manifest = { apiVersion: "v1", kind: "Service", metadata: { name: "x" }, spec: aSpec() };
    expect(validate(manifest).map((i) => i.path)).toEqual(["apiVersion", "kind"]);
  });

  it("requires spec and rejects a non-object", () => {
    expect(validate(null)).toEqual([{ path: "", message: "must be an object" }]);
    const noSpec = {
      apiVersion: "network.deckhouse.io/v1alpha1",
      kind: "ServiceWithHealthchecks",
      metadata: { name: "x" },
    };
    expect(validate(noSpec)).toEqual([{ path: "spec", message: "Required value" }]);
  });

  it("skips the name rule when the name is not set yet (generateName)", () => {
    const manifest = {
      ...serviceWithHealthchecks({ name: "x" }, aSpec()),
      metadata: { generateName: "web-" },
    };
    expect(validate(manifest)).toEqual([]);
  });

  it("reports the CEL rule's message for a mode mismatch", () => {
    const manifest = serviceWithHealthchecks(
      { name: "x" },
      aSpec({ healthcheck: { probes: [{ mode: "HTTP", tcp: { targetPort: 80 } }] } }),
    );
    expect(validate(manifest)).toEqual([
      {
        path: "spec.healthcheck.probes[0]",
        message:
          "mode HTTP requires the http sub-object and no other (tcp, postgreSQL, grpc must not be set)",
      },
    ]);
  });
});

describe("describeSpecIssues", () => {
  it("names the first field a stored spec gets wrong, and how many more there are", () => {
    const stored = { ...aSpec(), ports: "smtp", healthcheck: { probes: [{ mode: "UDP" }] } };
    expect(describeSpecIssues(stored)).toBe('spec.ports: must be of type array: "string" (and 1 more)');
  });

  it("says nothing about a valid spec", () => {
    expect(describeSpecIssues(aSpec())).toBeUndefined();
  });

  it("never repeats a header value", () => {
    const header = { name: "Authorization", value: "Bearer s3cret" };
    const stored = aSpec({
      healthcheck: { probes: [{ mode: "HTTP", http: { targetPort: 80, httpHeaders: [header], path: 3 } }] },
    } as never);
    expect(describeSpecIssues(stored)).toMatch(/^spec\.healthcheck\.probes\[0\]\.http\.path: /);
    expect(describeSpecIssues(stored)).not.toContain("s3cret");
  });
});

describe("isProbeMode", () => {
  it.each([
    ["TCP", true],
    ["HTTP", true],
    ["PostgreSQL", true],
    ["GRPC", true],
    ["UDP", false],
    ["tcp", false],
    ["constructor", false],
    [7, false],
    [undefined, false],
  ])("%j is a mode this version runs: %s", (mode, expected) => {
    expect(isProbeMode(mode)).toBe(expected);
  });
});
