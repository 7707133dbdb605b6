import { describe, expect, it } from "vitest";
import { type ProbeTarget, planProbeTargets } from "../src/index.js";
import { initialDelayRemainingMs } from "../src/plan-probe-targets.js";
import { describeProbe } from "../src/probe-identity.js";
import { aGrpcProbe, anHttpProbe, aPod, aPort, aSwh, aTcpProbe, deepFreeze } from "./builders.js";

const summary = (targets: ProbeTarget[]) =>
  targets.map((t) => `${t.probe.mode} ${t.address}:${t.port} ${t.pod.name}`);

describe("planProbeTargets", () => {
  it("plans one target per pod address and probe", () => {
    const swh = aSwh({
      spec: { ports: [aPort(), aPort({ name: "metrics", port: 9090, targetPort: 9090 })] },
      probes: [aTcpProbe(8080), anHttpProbe("metrics")],
    });
    const pods = [aPod(), aPod({ name: "web-2", ips: ["10.244.1.2", "fd00:10:244::1:2"] })];
    expect(summary(planProbeTargets(deepFreeze([swh]), deepFreeze(pods))).sort()).toEqual([
      "HTTP 10.244.1.1:9090 web-1",
      "HTTP 10.244.1.2:9090 web-2",
      "HTTP fd00:10:244::1:2:9090 web-2",
      "TCP 10.244.1.1:8080 web-1",
      "TCP 10.244.1.2:8080 web-2",
      "TCP fd00:10:244::1:2:8080 web-2",
    ]);
  });

  it("shares one target between SWHs with the same probe config, named or numbered", () => {
    const a = aSwh({ name: "a", probes: [aTcpProbe(8080)] });
    const b = aSwh({ name: "b", probes: [aTcpProbe("http")] });
    const targets = planProbeTargets(deepFreeze([a, b]), deepFreeze([aPod()]));
    expect(targets).toHaveLength(1);
  });

  it.each([
    ["timeout", aSwh({ name: "b", probes: [aTcpProbe(8080, { timeoutSeconds: 2 })] })],
    ["failure threshold", aSwh({ name: "b", probes: [aTcpProbe(8080, { failureThreshold: 5 })] })],
    ["success threshold", aSwh({ name: "b", probes: [aTcpProbe(8080, { successThreshold: 2 })] })],
    [
      "period",
      aSwh({
        name: "b",
        probes: [aTcpProbe(8080)],
        spec: { healthcheck: { initialDelaySeconds: 10, periodSeconds: 5, probes: [aTcpProbe(8080)] } },
      }),
    ],
    [
      "initial delay",
      aSwh({
        name: "b",
        spec: { healthcheck: { initialDelaySeconds: 0, periodSeconds: 10, probes: [aTcpProbe(8080)] } },
      }),
    ],
    ["mode", aSwh({ name: "b", probes: [anHttpProbe(8080, "/")] })],
    [
      "transition period",
      aSwh({
        name: "b",
        spec: {
          healthcheck: {
            initialDelaySeconds: 10,
            periodSeconds: 10,
            transitionPeriodSeconds: 2,
            probes: [aTcpProbe(8080)],
          },
        },
      }),
    ],
    [
      "down period",
      aSwh({
        name: "b",
        spec: {
          healthcheck: {
            initialDelaySeconds: 10,
            periodSeconds: 10,
            downPeriodSeconds: 60,
            probes: [aTcpProbe(8080)],
          },
        },
      }),
    ],
    ["gRPC service", aSwh({ name: "b", probes: [aGrpcProbe(8080, "shop.v1.Orders")] })],
  ])("keeps targets apart when the %s differs", (_what, other) => {
    const base = aSwh({ name: "a", probes: [aTcpProbe(8080)] });
    expect(planProbeTargets(deepFreeze([base, other]), deepFreeze([aPod()]))).toHaveLength(2);
  });

  it("gives targets without adaptive periods the ids earlier versions gave them (restart seeding across upgrades)", () => {
    const [target] = planProbeTargets(
      deepFreeze([aSwh({ probes: [aTcpProbe(8080)] })]),
      deepFreeze([aPod()]),
    );
    // Computed by the version before adaptive periods existed (ADR 0037).
    expect(target?.id).toBe("tcp/10.244.1.1/8080/6729725b3a367394");
  });

  it("plans a gRPC probe on a named container port and describes it with its service", () => {
    const swh = aSwh({
      spec: { ports: [aPort({ name: "grpc", port: 50051, targetPort: "grpc" })] },
      probes: [aGrpcProbe("grpc", "shop.v1.Orders")],
    });
    const pod = aPod({ containerPorts: [{ name: "grpc", containerPort: 50051, protocol: "TCP" }] });
    const targets = planProbeTargets(deepFreeze([swh]), deepFreeze([pod]));
    expect(summary(targets)).toEqual(["GRPC 10.244.1.1:50051 web-1"]);
    expect(describeProbe(swh.spec.healthcheck.probes[0] as never, "grpc")).toBe("GRPC :grpc shop.v1.Orders");
  });

  it("keeps probing terminating pods and pods of publishNotReadyAddresses SWHs", () => {
    const swh = aSwh({ spec: { publishNotReadyAddresses: true }, probes: [aTcpProbe(8080)] });
    expect(
      planProbeTargets(deepFreeze([swh]), deepFreeze([aPod({ terminating: true, ready: false })])),
    ).toHaveLength(1);
  });

  it("does not run probes that gate no port, nor probes of non-candidates", () => {
    const swh = aSwh({ probes: [aTcpProbe(9090), aTcpProbe("nope")] });
    const pods = [aPod(), aPod({ name: "gone", phase: "Failed", ips: ["10.244.1.9"] })];
    expect(planProbeTargets(deepFreeze([swh]), deepFreeze(pods))).toEqual([]);
  });

  it("ignores pods of other nodes when a node is given", () => {
    const swh = aSwh({ probes: [aTcpProbe(8080)] });
    const pods = [aPod(), aPod({ name: "remote", nodeName: "node-b", ips: ["10.244.2.1"] })];
    expect(summary(planProbeTargets(deepFreeze([swh]), deepFreeze(pods), { nodeName: "node-a" }))).toEqual([
      "TCP 10.244.1.1:8080 web-1",
    ]);
  });

  it("gives ids that do not contain header values and do not depend on input order", () => {
    const probe = anHttpProbe(8080);
    const secretProbe = {
      ...probe,
      http: { ...probe.http!, httpHeaders: [{ name: "Authorization", value: "Bearer s3cret" }] },
    };
    const a = aSwh({ name: "a", probes: [secretProbe] });
    const b = aSwh({ name: "b", probes: [aTcpProbe(8080)] });
    const pods = [aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"] })];
    const forward = planProbeTargets(deepFreeze([a, b]), deepFreeze(pods));
    const backward = planProbeTargets(deepFreeze([b, a]), deepFreeze([...pods].reverse()));
    expect(backward.map((t) => t.id)).toEqual(forward.map((t) => t.id));
    expect(forward.map((t) => t.id).join(" ")).not.toContain("s3cret");
  });
});

describe("initialDelayRemainingMs", () => {
  const since = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    ["before the delay ends", since + 4_000, 6_000],
    ["once the delay has passed", since + 60_000, 0],
  ])("counts from eligibleSince %s", (_when, now, expected) => {
    expect(
      initialDelayRemainingMs({ initialDelaySeconds: 10, eligibleSince: "2026-01-01T00:00:00Z" }, now),
    ).toBe(expected);
  });
  it("applies the full delay when the start is unknown", () => {
    expect(initialDelayRemainingMs({ initialDelaySeconds: 10 }, since)).toBe(10_000);
  });
});
