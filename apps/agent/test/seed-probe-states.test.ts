import type { V1EndpointSlice } from "@kubernetes/client-node";
import { LABEL_SERVICE_NAME } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { ANNOTATION_ENDPOINT_REASONS } from "../src/internal/endpoint-reasons.js";
import { seedProbeStates, type TargetUser } from "../src/internal/seed-probe-states.js";

/** An endpoint as the agent publishes it: `failing` ones are listed in the reasons annotation. */
interface Ep {
  address: string;
  serving: boolean;
  failing?: boolean;
}

function aSlice(swh: string, port: number, endpoints: Ep[], namespace = "shop"): V1EndpointSlice {
  const reasons = Object.fromEntries(
    endpoints
      .filter((e) => e.failing ?? !e.serving)
      .map((e) => [e.address, { probe: "p", reason: "Timeout", target: "t" }]),
  );
  return {
    addressType: "IPv4",
    metadata: {
      name: `${swh}-${port}`,
      namespace,
      labels: { [LABEL_SERVICE_NAME]: swh },
      ...(Object.keys(reasons).length > 0
        ? { annotations: { [ANNOTATION_ENDPOINT_REASONS]: JSON.stringify(reasons) } }
        : {}),
    },
    ports: [{ name: "p", port, protocol: "TCP" }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.address],
      conditions: { ready: e.serving, serving: e.serving, terminating: false },
    })),
  };
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
