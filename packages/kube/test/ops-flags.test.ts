import { readFlags } from "@swh/flags";
import { describe, expect, it } from "vitest";
import { opsConfigOf, opsFlags } from "../src/index.js";

const agent = { metricsPort: 8443, healthPort: 8081, disableWithZero: true };
const controller = { ...agent, disableWithZero: false };
/** What an app with the ops flags of `app` reads from `argv` and `env`. */
function readOps(argv: string[], env: Record<string, string>, app: typeof agent) {
  const flags = readFlags(argv, opsFlags(app), env);
  if (!flags.ok || !("values" in flags)) return flags;
  return opsConfigOf(flags.values);
}

describe("the ops flags, read (readFlags + opsConfigOf)", () => {
  it("serves the default ports on every interface at level info when no flag is given", () => {
    expect(readOps([], {}, agent)).toEqual({
      ok: true,
      ops: {
        kubeconfig: undefined,
        metricsBindAddress: { host: undefined, port: 8443 },
        metricsTls: undefined,
        healthBindAddress: { host: undefined, port: 8081 },
        logLevel: "info",
      },
    });
  });

  it("reads every flag; the flag's log level wins over LOG_LEVEL, which wins over the default", () => {
    const given = [
      "--kubeconfig=/etc/kc",
      "--metrics-bind-address=[::1]:9443",
      "--metrics-tls-cert-file=/tls/tls.crt",
      "--metrics-tls-private-key-file=/tls/tls.key",
      "--health-bind-address",
      "127.0.0.1:0",
      "--log-level=debug",
    ];
    expect(readOps(given, { LOG_LEVEL: "warn" }, controller)).toEqual({
      ok: true,
      ops: {
        kubeconfig: "/etc/kc",
        metricsBindAddress: { host: "::1", port: 9443 },
        metricsTls: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
        healthBindAddress: { host: "127.0.0.1", port: 0 },
        logLevel: "debug",
      },
    });
    expect(readOps([], { LOG_LEVEL: "warn" }, controller)).toMatchObject({
      ops: { logLevel: "warn" },
    });
  });

  it("turns a server off with 0 only where the app allows it", () => {
    const off = ["--metrics-bind-address=0", "--health-bind-address=0"];
    expect(readOps(off, {}, agent)).toMatchObject({
      ok: true,
      ops: { metricsBindAddress: undefined, healthBindAddress: undefined },
    });
    expect(readOps(off, {}, controller)).toEqual({
      ok: false,
      error: '--metrics-bind-address must be host:port, [v6]:port, :port, got "0"',
    });
  });

  it.each([
    [["--log-level=loud"], '--log-level must be one of debug, info, warn, error, got "loud"'],
    [["--health-bind-address=localhost"], "--health-bind-address must be host:port"],
    [["--metrics-tls-cert-file=/tls/tls.crt"], "--metrics-tls-private-key-file is required"],
  ])("names the flag of a bad value: %o", (given, error) => {
    const result = readOps(given, {}, agent);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toContain(error);
  });
});

describe("opsFlags", () => {
  it("documents the app's default ports and what port 0 means there", () => {
    expect(opsFlags(agent)["metrics-bind-address"]).toMatchObject({ default: ":8443" });
    expect(opsFlags(agent)["health-bind-address"].help).toMatch(/0 disables$/);
    expect(opsFlags(controller)["health-bind-address"].help).toMatch(/port 0 a free port$/);
  });
});
