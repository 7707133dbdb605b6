/**
 * Pod identity variables (ADR 0036): each pod's targets carry the probe with that pod's name, namespace and uid
 * filled in, and the aggregation finds the state of exactly those targets.
 */
import { describe, expect, it } from "vitest";
import { aggregateEndpoints, planProbeTargets } from "../src/index.js";
import { aPod, aSwh, aTcpProbe, deepFreeze, noZone, statesFor } from "./builders.js";

const identityHttp = {
  mode: "HTTP" as const,
  timeoutSeconds: 1,
  successThreshold: 1,
  failureThreshold: 3,
  http: {
    targetPort: 8080,
    path: "/",
    scheme: "HTTP" as const,
    method: "GET" as const,
    insecureSkipTLSVerify: false,
    httpHeaders: [{ name: "X-Expect", value: "$(POD_NAMESPACE)/$(POD_NAME)" }],
    responseHeaders: [{ name: "X-Pod-Uid", value: "$(POD_UID)" }],
    body: { contains: "I am $(POD_NAME)", notContains: "not $(POD_UID)" },
  },
};

describe("pod identity variables", () => {
  const pods = deepFreeze([aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"] })]);

  it("fills in each pod's name, namespace and uid in every expectation, never in request headers", () => {
    const swh = deepFreeze(aSwh({ probes: [identityHttp] }));
    const targets = planProbeTargets([swh], pods);
    expect(targets.map((t) => [t.pod.name, t.probe.http])).toEqual([
      [
        "web-1",
        expect.objectContaining({
          httpHeaders: [{ name: "X-Expect", value: "$(POD_NAMESPACE)/$(POD_NAME)" }],
          responseHeaders: [{ name: "X-Pod-Uid", value: "uid-web-1" }],
          body: { contains: "I am web-1", notContains: "not uid-web-1" },
        }),
      ],
      [
        "web-2",
        expect.objectContaining({
          httpHeaders: [{ name: "X-Expect", value: "$(POD_NAMESPACE)/$(POD_NAME)" }],
          responseHeaders: [{ name: "X-Pod-Uid", value: "uid-web-2" }],
          body: { contains: "I am web-2", notContains: "not uid-web-2" },
        }),
      ],
    ]);
  });

  it("fills in TCP send and expect", () => {
    const probe = aTcpProbe(8080, {
      tcp: { targetPort: 8080, send: "WHO $(POD_UID)\r\n", expect: "$(POD_NAME)" },
    });
    const [target] = planProbeTargets([deepFreeze(aSwh({ probes: [probe] }))], pods.slice(0, 1));
    expect(target?.probe.tcp).toEqual({ targetPort: 8080, send: "WHO uid-web-1\r\n", expect: "web-1" });
  });

  it("a new pod on a recycled IP gets a new target: the old pod's passing state never counts for it", () => {
    const swh = deepFreeze(aSwh({ probes: [identityHttp] }));
    const old = [aPod({ name: "web-old", ips: ["10.244.1.9"] })];
    const recycled = deepFreeze([aPod({ name: "web-new", ips: ["10.244.1.9"] })]);
    const states = statesFor([swh], deepFreeze(old));
    const { groups } = aggregateEndpoints(swh, recycled, states, noZone);
    const endpoints = groups.flatMap((g) => g.endpoints);
    expect(endpoints.map((e) => [e.targetRef.name, e.conditions.ready])).toEqual([["web-new", false]]);
  });

  it("a probe that names no pod is shared as before: one object, the same target for equal settings", () => {
    const probe = aTcpProbe(8080, { tcp: { targetPort: 8080, send: "PING\r\n", expect: "+PONG" } });
    const a = deepFreeze(aSwh({ name: "a", probes: [probe] }));
    const b = deepFreeze(aSwh({ name: "b", probes: [probe] }));
    const targets = planProbeTargets([a, b], pods.slice(0, 1));
    expect(targets).toHaveLength(1);
    expect(targets[0]?.probe).toBe(probe);
  });
});
