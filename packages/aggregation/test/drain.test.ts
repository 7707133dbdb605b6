import { ANNOTATION_DRAIN } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { aggregateEndpoints, type PodInfo, podInfoFromPod, samePodInfo } from "../src/index.js";
import { anHttpProbe, aPod, aSwh, noZone, statesFor } from "./builders.js";
import { aServedPod } from "./support/served-pod.js";

describe("reading the drain annotation", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    [" , ", undefined],
    ["*", ["*"]],
    ["web", ["web"]],
    [" web , mail,web,", ["mail", "web"]],
  ])("%j drains the pod from %j", (value, drainedFrom) => {
    const pod = podInfoFromPod(
      aServedPod(value === undefined ? {} : { annotations: { [ANNOTATION_DRAIN]: value } }),
    );
    expect(pod?.drainedFrom).toEqual(drainedFrom);
  });

  it("is a change the agent acts on: a pod drained and the same pod undrained differ", () => {
    const drained = podInfoFromPod(aServedPod({ annotations: { [ANNOTATION_DRAIN]: "web" } }));
    const plain = podInfoFromPod(aServedPod({ annotations: { other: "x" } }));
    expect(samePodInfo(drained, plain)).toBe(false);
    expect(samePodInfo(plain, podInfoFromPod(aServedPod()))).toBe(true);
  });
});

describe("a drained pod in the aggregation", () => {
  const swh = aSwh({ probes: [anHttpProbe(8080)] });
  const aggregate = (pods: PodInfo[], decide?: Parameters<typeof statesFor>[2]) =>
    aggregateEndpoints(swh, pods, statesFor([swh], pods, decide), noZone).groups.flatMap((g) => g.endpoints);

  it("is published not ready but serving, drained, with no probe failure, while its checks pass", () => {
    const [endpoint] = aggregate([aPod({ drainedFrom: ["web"] })]);
    expect(endpoint?.conditions).toEqual({ ready: false, serving: true, terminating: false });
    expect(endpoint?.drained).toBe(true);
    expect(endpoint?.failure).toBeUndefined();
  });

  it("keeps its failing probe as the failure when it is drained and failing too", () => {
    const [endpoint] = aggregate([aPod({ drainedFrom: ["*"] })], () => ({
      passing: false,
      reason: "HTTPStatus",
      message: "HTTP 503",
    }));
    expect(endpoint?.conditions).toEqual({ ready: false, serving: false, terminating: false });
    expect(endpoint).toMatchObject({ drained: true, failure: { reason: "HTTPStatus" } });
  });

  it("stays in the balancers its annotation does not name, and comes back at once without it", () => {
    const [other] = aggregate([aPod({ drainedFrom: ["mail"] })]);
    expect(other?.conditions.ready).toBe(true);
    expect(other?.drained).toBeUndefined();
    // The same probe states: no threshold to wait for once the annotation is gone.
    const [back] = aggregate([aPod()]);
    expect(back?.conditions.ready).toBe(true);
  });
});
