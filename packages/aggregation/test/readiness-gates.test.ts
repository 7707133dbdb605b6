import { READINESS_GATE_PREFIX } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import {
  aggregateEndpoints,
  type PodInfo,
  podInfoFromPod,
  readinessGatePatch,
  readinessGateUpdates,
  samePodInfo,
} from "../src/index.js";
import { anHttpProbe, aPod, aPort, aSwh, noZone, statesFor } from "./builders.js";
import { aServedPod } from "./support/served-pod.js";

const GATE = `${READINESS_GATE_PREFIX}web`;

describe("reading a pod's readiness gates", () => {
  it("keeps the gates that name an SWH, with the pod's condition of each, sorted", () => {
    const served = aServedPod();
    const pod = podInfoFromPod({
      ...served,
      spec: {
        ...served.spec,
        readinessGates: [
          { conditionType: `${READINESS_GATE_PREFIX}web` },
          { conditionType: "target-health.elbv2.k8s.aws/tg" },
          { conditionType: `${READINESS_GATE_PREFIX}mail` },
          { conditionType: READINESS_GATE_PREFIX },
        ],
      },
      status: {
        ...served.status,
        conditions: [
          ...served.status.conditions,
          { type: `${READINESS_GATE_PREFIX}web`, status: "False", reason: "Timeout" },
        ],
      },
    });
    expect(pod?.readinessGates).toEqual([
      { swh: "mail" },
      { swh: "web", current: { status: "False", reason: "Timeout" } },
    ]);
  });

  it("leaves the field out for a pod without such gates", () => {
    expect(podInfoFromPod(aServedPod())?.readinessGates).toBeUndefined();
  });

  it("is a change the agent acts on: the same pod with another gate condition differs", () => {
    const withGate = (status: string) => {
      const served = aServedPod();
      return podInfoFromPod({
        ...served,
        spec: { ...served.spec, readinessGates: [{ conditionType: GATE }] },
        status: {
          ...served.status,
          conditions: [...served.status.conditions, { type: GATE, status, reason: "R" }],
        },
      });
    };
    expect(samePodInfo(withGate("True"), withGate("False"))).toBe(false);
    expect(samePodInfo(withGate("True"), withGate("True"))).toBe(true);
  });
});

describe("readinessGateUpdates", () => {
  const swh = aSwh({
    probes: [anHttpProbe(8080), anHttpProbe(9090)],
    spec: { ports: [aPort(), aPort({ name: "metrics", port: 90, targetPort: 9090 })] },
  });
  const updates = (pods: PodInfo[], failing: (port: number) => boolean = () => false) => {
    const states = statesFor([swh], pods, (t) =>
      failing(t.port) ? { passing: false, reason: "HTTPStatus", message: "HTTP 503" } : { passing: true },
    );
    const { groups } = aggregateEndpoints(swh, pods, states, noZone);
    return readinessGateUpdates(swh, pods, groups, "node-a");
  };
  const gated = (overrides: Partial<PodInfo> = {}, current?: { status: string; reason: string }) =>
    aPod({
      readinessGates: [current === undefined ? { swh: "web" } : { swh: "web", current }],
      ...overrides,
    });

  it("opens the gate of a pod whose every port passes, even while the pod is not Ready (the gate holds it)", () => {
    expect(updates([gated({ ready: false })])).toEqual([
      {
        pod: { namespace: "default", name: "web-1", uid: "uid-web-1" },
        condition: {
          type: GATE,
          status: "True",
          reason: "ChecksPassing",
          message: "every port of this pod passes the checks of ServiceWithHealthchecks default/web",
        },
        transition: true,
      },
    ]);
  });

  it("closes it with the failing check's reason, naming the port, when one port fails", () => {
    const [update] = updates([gated({}, { status: "True", reason: "ChecksPassing" })], (p) => p === 9090);
    expect(update?.condition).toMatchObject({ status: "False", reason: "HTTPStatus" });
    expect(update?.transition).toBe(true);
    expect(update?.condition.message).toContain("port metrics: HTTP :9090 /healthz: HTTP 503");
  });

  it("writes nothing when the pod already carries the verdict (steady state)", () => {
    expect(updates([gated({}, { status: "True", reason: "ChecksPassing" })])).toEqual([]);
    expect(updates([gated({}, { status: "False", reason: "HTTPStatus" })], () => true)).toEqual([]);
  });

  it("rewrites when only the reason changed", () => {
    const [update] = updates([gated({}, { status: "False", reason: "Timeout" })], () => true);
    expect(update?.condition).toMatchObject({ status: "False", reason: "HTTPStatus" });
    expect(update?.transition).toBe(false);
  });

  it("keeps a drained pod's gate open while its checks pass (a drain is no verdict)", () => {
    expect(updates([gated({ drainedFrom: ["*"] })])[0]?.condition.status).toBe("True");
  });

  it("says NoEndpoints when the SWH selects the pod but none of its ports resolves to it", () => {
    // A named target port the pod does not declare resolves to nothing on it (as for a Service).
    const named = aSwh({ probes: [], spec: { ports: [aPort({ targetPort: "absent" })] } });
    const pods = [gated()];
    const { groups } = aggregateEndpoints(named, pods, statesFor([named], pods), noZone);
    expect(readinessGateUpdates(named, pods, groups, "node-a")[0]?.condition).toMatchObject({
      status: "False",
      reason: "NoEndpoints",
    });
  });

  it("leaves alone pods without its gate, of another SWH's gate, terminating, on another node or unselected", () => {
    const pods = [
      aPod({ name: "plain" }),
      aPod({ name: "other-gate", readinessGates: [{ swh: "mail" }] }),
      gated({ name: "terminating", terminating: true }),
      gated({ name: "elsewhere", nodeName: "node-b" }),
      gated({ name: "unselected", labels: { app: "mail" } }),
      gated({ name: "no-ip", ips: [] }),
    ];
    expect(updates(pods)).toEqual([]);
  });
});

describe("the patch of a readiness gate update", () => {
  const update = {
    pod: { namespace: "shop", name: "web-1", uid: "uid-web-1" },
    condition: { type: GATE, status: "True" as const, reason: "ChecksPassing", message: "all checks pass" },
    transition: true,
  };
  const now = new Date("2026-12-07T01:02:03.000Z");

  it("patches only its own condition, under the pod's uid, stamped now when its status changes", () => {
    expect(readinessGatePatch(update, now)).toEqual({
      metadata: { uid: "uid-web-1" },
      status: { conditions: [{ ...update.condition, lastTransitionTime: "2026-12-07T01:02:03.000Z" }] },
    });
  });

  it("leaves the pod's transition time when only the reason changed", () => {
    const patch = readinessGatePatch({ ...update, transition: false }, now);
    expect(patch.status.conditions).toEqual([update.condition]);
  });
});
