import type { V1EndpointSlice } from "@kubernetes/client-node";
import { ANNOTATION_ENDPOINT_REASONS } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { findEndpointTransitions } from "../src/endpoint-transitions.js";
import { planSlices, readSlice } from "../src/index.js";
import { aGroup, anEndpoint, nodeName, swh } from "./builders.js";

const drained = anEndpoint("10.244.1.7", {
  conditions: { ready: false, serving: true, terminating: false },
  drained: true,
});

describe("a drained endpoint in the slices", () => {
  const slice = planSlices({
    swh,
    nodeName,
    existing: [],
    groups: [aGroup({ endpoints: [drained] })],
  }).create[0] as V1EndpointSlice;

  it("is written not ready, serving, with the reason Drained and no probe target to seed from", () => {
    expect(slice.endpoints?.[0]?.conditions).toEqual({ ready: false, serving: true, terminating: false });
    const reasons = JSON.parse(slice.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS] ?? "{}");
    expect(reasons["10.244.1.7"]).toEqual({
      reason: "Drained",
      message: "the pod's annotation network.deckhouse.io/swh-drain drains it",
    });
    expect(readSlice(slice)?.endpoints[0]?.reason?.reason).toBe("Drained");
  });

  it("is a transition reported as drained, not as a failing probe", () => {
    const wasReady = anEndpoint("10.244.1.7");
    const [before] = planSlices({
      swh,
      nodeName,
      existing: [],
      groups: [aGroup({ endpoints: [wasReady] })],
    }).create;
    const [transition] = findEndpointTransitions(before ? [before] : [], [aGroup({ endpoints: [drained] })]);
    expect(transition).toMatchObject({ ready: false, drained: true });
    expect(transition?.failure).toBeUndefined();
  });
});
