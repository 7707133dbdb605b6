import type { V1EndpointSlice } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { findEndpointTransitions, type TransitionGroup } from "../src/endpoint-transitions.js";

function aSlice(
  portName: string,
  port: number,
  endpoints: { address: string; ready: boolean }[],
): V1EndpointSlice {
  return {
    addressType: "IPv4",
    metadata: { name: `web-${portName}` },
    ports: [{ name: portName, port }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.address],
      conditions: { ready: e.ready, serving: e.ready, terminating: false },
    })),
  };
}

function aGroup(
  portName: string,
  port: number,
  endpoints: { address: string; ready: boolean }[],
): TransitionGroup {
  return {
    portName,
    port,
    addressFamily: "IPv4",
    endpoints: endpoints.map((e) => ({
      address: e.address,
      conditions: { ready: e.ready, serving: e.ready, terminating: false },
      targetRef: { name: `pod-${e.address.split(".").at(-1)}`, namespace: "shop" },
    })),
  };
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
