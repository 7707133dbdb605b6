/**
 * Fail-open (ADR 0039): the controller's verdict from the slices, and the agents publishing a failing port's
 * endpoints as if passing — never the ones fail-open must not publish.
 */
import { CONFIGURATION_FAILURE_REASONS } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { aggregateEndpoints, failOpenVerdict, type JudgedEndpoint } from "../src/index.js";
import { anHttpProbe, aPod, aSwh, aTcpProbe, deepFreeze, noZone, statesFor } from "./builders.js";

const passing: JudgedEndpoint = { conditions: { serving: true, terminating: false } };
const failing = (reason = "HTTPStatus"): JudgedEndpoint => ({
  conditions: { serving: false, terminating: false },
  reason: { reason },
});
const slice = (portName: string, ...endpoints: JudgedEndpoint[]) => ({ portName, endpoints });

describe("failOpenVerdict", () => {
  it("says nothing when failOpen is unset, whatever fails", () => {
    expect(failOpenVerdict(undefined, [slice("http", failing(), failing())])).toEqual([]);
  });

  it("without a threshold, fails a port open only while none of its judged endpoints passes", () => {
    const verdict = failOpenVerdict({}, [
      slice("http", failing(), failing("Timeout")),
      slice("http", failing("ConnectionRefused")),
      slice("grpc", failing(), passing),
    ]);
    expect(verdict).toEqual([{ portName: "http", passing: 0, failing: 3 }]);
  });

  it("with healthyBelowPercent, fails open while fewer than that share pass (strictly)", () => {
    const half = [slice("http", passing, failing())];
    expect(failOpenVerdict({ healthyBelowPercent: 50 }, half)).toEqual([]);
    expect(failOpenVerdict({ healthyBelowPercent: 51 }, half)).toEqual([
      { portName: "http", passing: 1, failing: 1 },
    ]);
    expect(failOpenVerdict({ healthyBelowPercent: 100 }, [slice("http", passing)])).toEqual([]);
  });

  it("counts only judged endpoints: not drained, terminating, not probed yet or unable to run", () => {
    const unjudged: JudgedEndpoint[] = [
      { conditions: { serving: false, terminating: true }, reason: { reason: "HTTPStatus" } },
      failing("Drained"),
      failing("NotProbedYet"),
      ...CONFIGURATION_FAILURE_REASONS.map((r) => failing(r)),
      // The kubelet holds the pod not ready: no failure of ours, not serving.
      { conditions: { serving: false, terminating: false } },
    ];
    expect(failOpenVerdict({}, [slice("http", ...unjudged)])).toEqual([]);
    // A new SWH whose endpoints await their first probe is no outage.
    expect(failOpenVerdict({}, [slice("http", failing("NotProbedYet"), failing("NotProbedYet"))])).toEqual(
      [],
    );
    expect(failOpenVerdict({}, [slice("http", ...unjudged, failing())])).toEqual([
      { portName: "http", passing: 0, failing: 1 },
    ]);
  });

  it("reads the failure, not the published readiness: endpoints published as if passing keep it failing open", () => {
    const publishedOpen: JudgedEndpoint = {
      conditions: { serving: true, terminating: false },
      reason: { reason: "HTTPStatus" },
    };
    expect(failOpenVerdict({}, [slice("http", publishedOpen, publishedOpen)])).toHaveLength(1);
  });
});

describe("aggregateEndpoints failing open", () => {
  const pods = deepFreeze([aPod(), aPod({ name: "web-2", ips: ["10.244.1.2"] })]);
  const failingAll = { passing: false, reason: "HTTPStatus", message: "HTTP 503" };
  const ready = (swh: ReturnType<typeof aSwh>, states: ReturnType<typeof statesFor>, open: string[]) =>
    aggregateEndpoints(swh, pods, states, { ...noZone, failOpenPorts: new Set(open) })
      .groups.flatMap((g) => g.endpoints)
      .map(
        (e) =>
          `${e.targetRef.name} ready=${e.conditions.ready} serving=${e.conditions.serving} ${e.failure?.reason ?? "-"}`,
      );

  it("publishes a port's failing endpoints as if passing, keeping the failure for the reasons annotation", () => {
    const swh = deepFreeze(aSwh({ probes: [anHttpProbe(8080)], spec: { healthcheck: healthcheck({}) } }));
    const states = statesFor([swh], pods, () => failingAll);
    expect(ready(swh, states, ["http"])).toEqual([
      "web-1 ready=true serving=true HTTPStatus",
      "web-2 ready=true serving=true HTTPStatus",
    ]);
    expect(ready(swh, states, [])).toEqual([
      "web-1 ready=false serving=false HTTPStatus",
      "web-2 ready=false serving=false HTTPStatus",
    ]);
  });

  it("applies the verdict only while the spec asks for fail-open (an edited annotation alone does nothing)", () => {
    const swh = deepFreeze(aSwh({ probes: [anHttpProbe(8080)] }));
    const states = statesFor([swh], pods, () => failingAll);
    expect(ready(swh, states, ["http"])).toEqual([
      "web-1 ready=false serving=false HTTPStatus",
      "web-2 ready=false serving=false HTTPStatus",
    ]);
  });

  it.each([
    ["drained", [anHttpProbe(8080)], { drainedFrom: ["*"] }],
    ["terminating", [anHttpProbe(8080)], { terminating: true }],
    ["held not ready by the kubelet", [anHttpProbe(8080)], { ready: false }],
    ["with a probe that cannot run", [anHttpProbe(8080), aTcpProbe("nope")], {}],
  ] as const)("never publishes a pod %s", (_what, probes, pod) => {
    const swh = deepFreeze(
      aSwh({ probes: [...probes], spec: { healthcheck: healthcheck({}, [...probes]) } }),
    );
    const odd = deepFreeze([aPod(pod)]);
    const states = statesFor([swh], odd, () => failingAll);
    const open = { ...noZone, failOpenPorts: new Set(["http"]) };
    const endpoints = aggregateEndpoints(swh, odd, states, open).groups.flatMap((g) => g.endpoints);
    expect(endpoints.map((e) => e.conditions.ready)).toEqual([false]);
  });

  it("never publishes endpoints not probed yet", () => {
    const swh = deepFreeze(aSwh({ probes: [anHttpProbe(8080)], spec: { healthcheck: healthcheck({}) } }));
    expect(ready(swh, new Map(), ["http"])).toEqual([
      "web-1 ready=false serving=false NotProbedYet",
      "web-2 ready=false serving=false NotProbedYet",
    ]);
  });
});

function healthcheck(failOpen: object, probes = [anHttpProbe(8080)]) {
  return { initialDelaySeconds: 10, periodSeconds: 10, probes, failOpen };
}
