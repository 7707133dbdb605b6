import type { V1EndpointSlice } from "@kubernetes/client-node";
import { aggregateEndpoints, type ProbeState } from "@swh/aggregation";
import { planSlices } from "@swh/slice-writer";
import { describe, expect, it } from "vitest";
import {
  ANNOTATION_ENDPOINT_REASONS,
  readReasonSeeds,
  withEndpointReasons,
} from "../src/internal/endpoint-reasons.js";
import { planNodeTargets } from "../src/internal/probe-targets.js";
import { swhInputFromObject } from "../src/internal/swh-input.js";
import { anHttpProbe, aPod, aSwhObject, NODE } from "./builders.js";

const swh = swhInputFromObject(aSwhObject({ probes: [anHttpProbe(8080)] }));
if (!swh?.uid) throw new Error("bad builder");
const pods = [aPod({ name: "a", ips: ["10.244.1.5"] }), aPod({ name: "b", ips: ["10.244.1.6"] })];
const ids = planNodeTargets([swh], pods, NODE).targets.map((t) => t.id);

function planFor(states: Map<string, ProbeState>, existing: V1EndpointSlice[]) {
  const { groups } = aggregateEndpoints(swh as NonNullable<typeof swh>, pods, states, {
    zoneOf: () => undefined,
    nodeName: NODE,
  });
  const identity = { name: "web", namespace: "shop", uid: "uid-web" };
  return withEndpointReasons(
    planSlices({ swh: identity, nodeName: NODE, groups, existing }),
    existing,
    groups,
  );
}

const reasonsOf = (slice: V1EndpointSlice | undefined) =>
  JSON.parse(slice?.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS] ?? "null");

describe("withEndpointReasons", () => {
  it("annotates a new slice with the failing probe and reason of each failing address only", () => {
    const states = new Map<string, ProbeState>([
      [ids[0] ?? "", { passing: true }],
      [ids[1] ?? "", { passing: false, reason: "HTTPStatus", message: "status 503" }],
    ]);
    const plan = planFor(states, []);
    expect(plan.create).toHaveLength(1);
    expect(reasonsOf(plan.create[0])).toEqual({
      "10.244.1.6": {
        probe: "HTTP :8080 /healthz",
        reason: "HTTPStatus",
        message: "status 503",
        target: ids[1],
      },
    });
  });

  it("updates a slice whose endpoints are unchanged but whose reason changed, and drops the annotation when all pass", () => {
    const failing = (reason: string) =>
      new Map<string, ProbeState>(ids.map((id) => [id, { passing: false, reason, message: reason }]));
    const created = planFor(failing("Timeout"), []).create;
    const changed = planFor(failing("ConnectionRefused"), created);
    expect(changed.create).toEqual([]);
    expect(changed.update).toHaveLength(1);
    expect(reasonsOf(changed.update[0])["10.244.1.5"].reason).toBe("ConnectionRefused");
    expect(planFor(failing("Timeout"), created)).toEqual({ create: [], update: [], delete: [] });

    const passing = planFor(new Map(ids.map((id) => [id, { passing: true }])), created);
    expect(passing.update).toHaveLength(1);
    expect(passing.update[0]?.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS]).toBeUndefined();
  });
});

describe("readReasonSeeds", () => {
  it("reads the published failure of each target back, skipping not-yet-probed ones and garbage", () => {
    const slice = (annotation: string): V1EndpointSlice => ({
      addressType: "IPv4",
      endpoints: [],
      metadata: { annotations: { [ANNOTATION_ENDPOINT_REASONS]: annotation } },
    });
    const seeds = readReasonSeeds([
      slice(
        JSON.stringify({
          "10.244.1.5": { probe: "p", reason: "Timeout", message: "timed out", target: "t1" },
          "10.244.1.6": { probe: "p", reason: "NotProbedYet", message: "no probe result yet", target: "t2" },
          "10.244.1.7": { probe: "p", reason: "Timeout" },
        }),
      ),
      slice("{not json"),
      slice("[1,2]"),
    ]);
    expect(seeds).toEqual(new Map([["t1", { passing: false, reason: "Timeout", message: "timed out" }]]));
  });
});
