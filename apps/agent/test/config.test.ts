import { describe, expect, it } from "vitest";
import { parseAgentConfig } from "../src/config.js";

const env = { NODE_NAME: "node-a", POD_NAMESPACE: "swh-system" };

describe("parseAgentConfig", () => {
  it("applies the documented defaults", () => {
    const result = parseAgentConfig([], env);
    expect(result).toEqual({
      ok: true,
      config: {
        nodeName: "node-a",
        namespace: "swh-system",
        kubeconfig: undefined,
        metricsBindAddress: { host: undefined, port: 8443 },
        metricsTls: undefined,
        healthBindAddress: { host: undefined, port: 8081 },
        logLevel: "info",
        maxConcurrentProbes: 100,
        credentialsNamespaces: [],
      },
    });
  });

  it("reads every flag in both --flag value and --flag=value forms", () => {
    const result = parseAgentConfig(
      [
        "--kubeconfig",
        "/tmp/kc",
        "--metrics-bind-address=0",
        "--health-bind-address",
        "[::1]:9000",
        "--log-level=debug",
        "--max-concurrent-probes",
        "7",
        "--metrics-tls-cert-file=/tls/tls.crt",
        "--metrics-tls-private-key-file=/tls/tls.key",
      ],
      env,
    );
    expect(result).toMatchObject({
      ok: true,
      config: {
        kubeconfig: "/tmp/kc",
        metricsBindAddress: undefined,
        healthBindAddress: { host: "::1", port: 9000 },
        logLevel: "debug",
        maxConcurrentProbes: 7,
        metricsTls: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
      },
    });
  });

  it.each([
    ["", []],
    ["team-b,team-a", ["team-a", "team-b"]],
    [" team-a , ,team-a,", ["team-a"]],
  ])("reads --credentials-namespaces=%j as %j", (flag, namespaces) => {
    const result = parseAgentConfig([`--credentials-namespaces=${flag}`], env);
    expect(result).toMatchObject({ ok: true, config: { credentialsNamespaces: namespaces } });
  });

  it("answers --version without needing NODE_NAME", () => {
    expect(parseAgentConfig(["--version"], {})).toEqual({ ok: true, version: true });
  });

  it.each([
    [[], {}, /NODE_NAME is required/],
    [[], { NODE_NAME: "  " }, /NODE_NAME is required/],
    [["--log-level", "loud"], env, /--log-level must be one of/],
    [["--max-concurrent-probes=0"], env, /--max-concurrent-probes/],
    [["--max-concurrent-probes=1.5"], env, /--max-concurrent-probes/],
    [["--metrics-bind-address=localhost"], env, /--metrics-bind-address must be host:port/],
    [["--health-bind-address=:70000"], env, /--health-bind-address/],
    [["--frobnicate"], env, /unknown flag --frobnicate/],
    [["--metrics-tls-private-key-file=/k"], env, /--metrics-tls-cert-file is required/],
    [["--kubeconfig"], env, /--kubeconfig needs a value/],
    [["stray"], env, /unexpected argument "stray"/],
    [["--credentials-namespaces=team-a,Team_B"], env, /--credentials-namespaces .* got "Team_B"/],
    [[`--credentials-namespaces=${"a".repeat(64)}`], env, /--credentials-namespaces/],
  ] as const)("rejects %j with %j", (argv, environment, message) => {
    const result = parseAgentConfig(argv, environment);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });

  it("treats a missing POD_NAMESPACE as no heartbeat namespace", () => {
    const result = parseAgentConfig([], { NODE_NAME: "n" });
    expect(result.ok && "config" in result && result.config.namespace).toBeUndefined();
  });
});
