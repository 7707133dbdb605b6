import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
import { describe, expect, it } from "vitest";
import { findEndpointTransitions, transitionEvent } from "../src/endpoint-transitions.js";
import { planSlices } from "../src/index.js";
import { anEndpoint, aGroup as aPlannerGroup, nodeName, swh } from "./builders.js";

/** The desired endpoints of one port, as the aggregation hands them to the writer. */
function aGroup(
  portName: string,
  port: number,
  endpoints: { address: string; ready: boolean }[],
): EndpointGroup {
  return aPlannerGroup({
    portName,
    port,
    endpoints: endpoints.map((e) =>
      anEndpoint(e.address, {
        conditions: { ready: e.ready, serving: e.ready, terminating: false },
        targetRef: {
          kind: "Pod",
          name: `pod-${e.address.split(".").at(-1)}`,
          namespace: "default",
          uid: `uid-${e.address}`,
        },
      }),
    ),
  });
}

/** The slices the agent wrote for `endpoints` of one port: built by the writer itself. */
function aSlice(
  portName: string,
  port: number,
  endpoints: { address: string; ready: boolean }[],
): V1EndpointSlice {
  return planSlices({ swh, nodeName, existing: [], groups: [aGroup(portName, port, endpoints)] })
    .create[0] as V1EndpointSlice;
}

describe("findEndpointTransitions", () => {
  it("reports each endpoint whose ready bit flips, per port", () => {
    const existing = [
      aSlice("http", 8080, [
        { address: "10.244.1.5", ready: true },
        { address: "10.244.1.6", ready: false },
      ]),
      aSlice("grpc", 9090, [{ address: "10.244.1.5", ready: true }]),
    ];
    const groups = [
      aGroup("http", 8080, [
        { address: "10.244.1.5", ready: false },
        { address: "10.244.1.6", ready: true },
      ]),
      aGroup("grpc", 9090, [{ address: "10.244.1.5", ready: true }]),
    ];
    expect(findEndpointTransitions(existing, groups)).toEqual([
      { pod: "pod-5", address: "10.244.1.5", portName: "http", port: 8080, ready: false },
      { pod: "pod-6", address: "10.244.1.6", portName: "http", port: 8080, ready: true },
    ]);
  });

  it("does not report endpoints that appear, disappear or stay the same", () => {
    const existing = [aSlice("http", 8080, [{ address: "10.244.1.5", ready: true }])];
    const groups = [
      aGroup("http", 8080, [
        { address: "10.244.1.6", ready: false },
        { address: "10.244.1.7", ready: true },
      ]),
    ];
    expect(findEndpointTransitions(existing, groups)).toEqual([]);
    expect(
      findEndpointTransitions(existing, [aGroup("http", 8080, [{ address: "10.244.1.5", ready: true }])]),
    ).toEqual([]);
  });
});

describe("transitionEvent", () => {
  const at = { pod: "web-1", address: "10.244.1.5", portName: "http", port: 8080 };

  it("warns of an endpoint a probe fails, naming the probe and its reason", () => {
    const failure = { failingProbe: "HTTP :8080 /healthz", reason: "HTTPStatus" };
    expect(transitionEvent({ ...at, ready: false, failure })).toEqual({
      type: "Warning",
      reason: "EndpointNotReady",
      message: "pod web-1 (10.244.1.5) port http (8080) is not ready: HTTP :8080 /healthz HTTPStatus",
      notReadyReason: "HTTPStatus",
    });
  });

  it("tells of a ready endpoint as news, by port number when the port has no name", () => {
    expect(transitionEvent({ ...at, portName: "", port: 9090, ready: true })).toEqual({
      type: "Normal",
      reason: "EndpointReady",
      message: "pod web-1 (10.244.1.5) port 9090 is ready",
    });
  });

  it("tells of a drained endpoint as news, not a warning, naming the annotation", () => {
    const event = transitionEvent({ ...at, ready: false, drained: true });
    expect(event).toMatchObject({ type: "Normal", reason: "EndpointNotReady", notReadyReason: "Drained" });
    expect(event.message).toBe(
      "pod web-1 (10.244.1.5) port http (8080) is not ready (Drained: the pod's annotation network.deckhouse.io/swh-drain drains it)",
    );
  });
});
