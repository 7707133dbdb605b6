import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { TargetUser } from "@swh/aggregation";
import { ANNOTATION_ENDPOINT_REASONS } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { planSlices } from "../src/index.js";
import { readReasonSeeds, seedProbeStates } from "../src/seed-probe-states.js";

/** The node of the agent under test. */
const NODE = "node-a";

/** An endpoint as the agent publishes it: `failing` ones are listed in the reasons annotation. */
interface Ep {
  address: string;
  serving: boolean;
  failing?: boolean;
}

/** The slice the agent's planner writes for `endpoints` of `swh` on container port `port`. */
function aSlice(swh: string, port: number, endpoints: Ep[], namespace = "shop"): V1EndpointSlice {
  const [slice] = planSlices({
    swh: { name: swh, namespace, uid: `uid-${swh}` },
    nodeName: NODE,
    existing: [],
    groups: [
      {
        portName: "p",
        port,
        protocol: "TCP",
        addressFamily: "IPv4",
        endpoints: endpoints.map((e) => ({
          address: e.address,
          conditions: { ready: e.serving, serving: e.serving, terminating: false },
          nodeName: NODE,
          targetRef: { kind: "Pod", name: `pod-${e.address}`, namespace, uid: `uid-${e.address}` },
          ...((e.failing ?? !e.serving)
            ? { failure: { probeIndex: 0, failingProbe: "p", reason: "Timeout", message: "", targetId: "t" } }
            : {}),
        })),
      },
    ],
  }).create;
  return slice as V1EndpointSlice;
}

const user = (name: string): TargetUser => ({ namespace: "shop", name });
const target = (id: string, address: string, port: number) => ({ id, address, port });

describe("seedProbeStates", () => {
  it("seeds a target passing when its endpoint serves in a slice of an SWH using it", () => {
    const seeds = seedProbeStates(
      [
        { target: target("a", "10.244.1.5", 8080), users: [user("web")] },
        { target: target("b", "10.244.1.6", 8080), users: [user("web")] },
      ],
      [
        aSlice("web", 8080, [
          { address: "10.244.1.5", serving: true },
          { address: "10.244.1.6", serving: false },
        ]),
      ],
    );
    expect([...seeds.keys()]).toEqual(["a"]);
  });

  it("seeds passing the probes of a not-Ready pod that no reason lists as failing", () => {
    const seeds = seedProbeStates(
      [{ target: target("a", "10.244.1.5", 8080), users: [user("web")] }],
      [aSlice("web", 8080, [{ address: "10.244.1.5", serving: false, failing: false }])],
    );
    expect([...seeds.keys()]).toEqual(["a"]);
  });

  it("keeps a shared target passing when one SWH serves it and another withholds for its own probe", () => {
    // "web" gates 8080 on probes p1 and p2 (p2 failing), "api" on p1 only: p1 must seed passing.
    const seeds = seedProbeStates(
      [
        { target: target("p1", "10.244.1.5", 8080), users: [user("web"), user("api")] },
        { target: target("p2", "10.244.1.5", 8080), users: [user("web")] },
      ],
      [
        aSlice("web", 8080, [{ address: "10.244.1.5", serving: false }]),
        aSlice("api", 8080, [{ address: "10.244.1.5", serving: true }]),
      ],
    );
    expect([...seeds.keys()]).toEqual(["p1"]);
  });

  it("ignores other ports, other SWHs and other namespaces", () => {
    const seeds = seedProbeStates(
      [
        { target: target("port", "10.244.1.5", 9090), users: [user("web")] },
        { target: target("swh", "10.244.1.5", 8080), users: [user("other")] },
      ],
      [
        aSlice("web", 8080, [{ address: "10.244.1.5", serving: true }]),
        aSlice("other", 8080, [{ address: "10.244.1.5", serving: true }], "elsewhere"),
      ],
    );
    expect(seeds.size).toBe(0);
  });
});

describe("readReasonSeeds", () => {
  it("reads the published failure of each target back, skipping not-yet-probed ones and garbage", () => {
    const withReasons = (annotation: string): V1EndpointSlice => {
      const slice = structuredClone(
        aSlice("web", 8080, [
          { address: "10.244.1.5", serving: false },
          { address: "10.244.1.6", serving: false },
          { address: "10.244.1.7", serving: false },
        ]),
      );
      (slice.metadata?.annotations ?? {})[ANNOTATION_ENDPOINT_REASONS] = annotation;
      return slice;
    };
    const seeds = readReasonSeeds([
      withReasons(
        JSON.stringify({
          "10.244.1.5": { probe: "p", reason: "Timeout", message: "timed out", target: "t1" },
          "10.244.1.6": { probe: "p", reason: "NotProbedYet", message: "no probe result yet", target: "t2" },
          "10.244.1.7": { probe: "p", reason: "Timeout" },
        }),
      ),
      withReasons("{not json"),
      withReasons("[1,2]"),
    ]);
    expect(seeds).toEqual(new Map([["t1", { passing: false, reason: "Timeout", message: "timed out" }]]));
  });
});
