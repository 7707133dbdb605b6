import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";

describe("parseConfig", () => {
  it("applies the documented defaults", () => {
    const result = parseConfig([], { POD_NAMESPACE: "swh-system", POD_NAME: "ctrl-0" });
    expect(result).toEqual({
      ok: true,
      config: {
        namespace: "swh-system",
        leaderElect: true,
        metricsBindAddress: { host: undefined, port: 8443 },
        healthBindAddress: { host: undefined, port: 8081 },
        logLevel: "info",
        nodeNotReadyGraceMs: 300_000,
        identity: "ctrl-0",
      },
    });
  });

  it("reads every flag, with = or a separate value", () => {
    const result = parseConfig(
      [
        "--kubeconfig",
        "/tmp/kc",
        "--namespace=ops",
        "--leader-elect=false",
        "--metrics-bind-address=[::1]:9090",
        "--health-bind-address",
        "127.0.0.1:0",
        "--log-level=debug",
        "--node-not-ready-grace=90s",
        "--metrics-tls-cert-file=/tls/tls.crt",
        "--metrics-tls-private-key-file",
        "/tls/tls.key",
      ],
      {},
    );
    expect(result).toMatchObject({
      ok: true,
      config: {
        kubeconfig: "/tmp/kc",
        namespace: "ops",
        leaderElect: false,
        metricsBindAddress: { host: "::1", port: 9090 },
        healthBindAddress: { host: "127.0.0.1", port: 0 },
        logLevel: "debug",
        nodeNotReadyGraceMs: 90_000,
        metricsTls: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
      },
    });
  });

  it("answers --version before anything else", () => {
    expect(parseConfig(["--version"], {})).toEqual({ ok: true, version: true });
  });

  it.each([
    [[], "--namespace is required"],
    [["--namespace=x", "--leader-elect=maybe"], "--leader-elect"],
    [["--namespace=x", "--metrics-bind-address=8080"], "--metrics-bind-address"],
    [["--namespace=x", "--log-level=loud"], "--log-level must be one of"],
    [["--namespace=x", "--node-not-ready-grace=5 minutes"], "--node-not-ready-grace"],
    [
      ["--namespace=x", "--node-not-ready-grace=300"],
      '--node-not-ready-grace: "300" has no unit: use 300s or',
    ],
    [["--namespace=x", "--frobnicate"], "unknown flag --frobnicate"],
    [["--namespace=x", "--metrics-tls-cert-file=/tls/tls.crt"], "--metrics-tls-private-key-file is required"],
    [["--namespace"], "--namespace needs a value"],
  ])("rejects %j naming the flag", (argv, message) => {
    const result = parseConfig(argv, {});
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });
});
