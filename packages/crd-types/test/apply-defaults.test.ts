import { describe, expect, it } from "vitest";
import { applyDefaults, httpProbe, postgresProbe, tcpProbe } from "../src/index.js";

describe("applyDefaults", () => {
  it("fills every documented default of an empty spec", () => {
    expect(applyDefaults({})).toEqual({
      type: "ClusterIP",
      ports: [],
      healthcheck: { initialDelaySeconds: 10, periodSeconds: 10, probes: [] },
    });
  });

  it("defaults each probe by its mode", () => {
    const d = applyDefaults({
      ports: [{ port: 80 }],
      healthcheck: { probes: [tcpProbe(80), httpProbe("web"), postgresProbe(5432, { dbName: "app" })] },
    });
    expect(d.ports).toEqual([{ port: 80, protocol: "TCP" }]);
    const timing = { timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
    expect(d.healthcheck.probes).toEqual([
      { mode: "TCP", ...timing, tcp: { targetPort: 80 } },
      {
        mode: "HTTP",
        ...timing,
        http: { targetPort: "web", path: "/", scheme: "HTTP", method: "GET", insecureSkipTLSVerify: false },
      },
      { mode: "PostgreSQL", ...timing, postgreSQL: { targetPort: 5432, dbName: "app", query: "select 1" } },
    ]);
  });

  it("keeps what the user set, including a healthcheck without probes", () => {
    const d = applyDefaults({
      type: "NodePort",
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 3 },
      ports: [{ port: 53, protocol: "UDP" }],
    });
    expect(d).toEqual({
      type: "NodePort",
      ports: [{ port: 53, protocol: "UDP" }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 3, probes: [] },
    });
  });

  it("does not add a selector: a missing selector keeps selecting no pods", () => {
    expect(applyDefaults({}).selector).toBeUndefined();
  });

  it("treats null like a missing field, as the API server does", () => {
    const spec = { type: null, healthcheck: { periodSeconds: null }, clusterIP: null } as never;
    expect(applyDefaults(spec)).toEqual(applyDefaults({}));
  });

  it("returns a new object and leaves its input untouched", () => {
    const spec = { healthcheck: { probes: [tcpProbe(1)] } };
    const before = structuredClone(spec);
    const d = applyDefaults(spec);
    expect(spec).toEqual(before);
    expect(d.healthcheck).not.toBe(spec.healthcheck);
  });
});
