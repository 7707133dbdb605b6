import { describe, expect, it } from "vitest";
import { planNodeCleanup } from "../src/plan-node-cleanup.js";
import { aLease, aNode } from "./builders.js";

const NOW = "2026-12-02T10:10:00Z";
const GRACE = 5 * 60_000;

describe("planNodeCleanup", () => {
  it.each([
    [
      "deleted Node with slices → delete at once",
      { node: undefined, hasSlices: true },
      { deleteSlices: "NodeDeleted", heartbeatStale: false },
    ],
    [
      "deleted Node without slices → nothing",
      { node: undefined, hasSlices: false },
      { deleteSlices: false, heartbeatStale: false },
    ],
    [
      "NotReady beyond the grace → delete",
      { node: aNode("n1", "False", "2026-12-02T10:04:00Z"), hasSlices: true },
      { deleteSlices: "NodeNotReady", heartbeatStale: false },
    ],
    [
      "Unknown within the grace → recheck when it ends",
      { node: aNode("n1", "Unknown", "2026-12-02T10:08:00Z"), hasSlices: true },
      { deleteSlices: false, heartbeatStale: false, recheckAfterMs: 3 * 60_000 },
    ],
    [
      "Ready with a fresh heartbeat → recheck when it would expire",
      { node: aNode("n1", "True"), lease: aLease("2026-12-02T10:09:50Z", 40), hasSlices: true },
      { deleteSlices: false, heartbeatStale: false, recheckAfterMs: 30_000 },
    ],
    [
      "Ready with an expired heartbeat → reported, slices kept",
      { node: aNode("n1", "True"), lease: aLease("2026-12-02T10:09:00Z", 40), hasSlices: true },
      { deleteSlices: false, heartbeatStale: true },
    ],
    [
      "Ready, slices but no heartbeat Lease → reported",
      { node: aNode("n1", "True"), lease: undefined, hasSlices: true },
      { deleteSlices: false, heartbeatStale: true },
    ],
    [
      "Ready without slices → nothing to report",
      { node: aNode("n1", "True"), lease: undefined, hasSlices: false },
      { deleteSlices: false, heartbeatStale: false },
    ],
  ])("%s", (_name, facts, expected) => {
    expect(planNodeCleanup({ lease: undefined, now: NOW, notReadyGraceMs: GRACE, ...facts })).toEqual(
      expected,
    );
  });

  it("accepts Date timestamps as typed clients deliver them", () => {
    const node = {
      metadata: { name: "n1" },
      status: {
        conditions: [
          { type: "Ready", status: "False", lastTransitionTime: new Date("2026-12-02T10:00:00Z") },
        ],
      },
    };
    expect(
      planNodeCleanup({ node, lease: undefined, hasSlices: true, now: new Date(NOW), notReadyGraceMs: GRACE })
        .deleteSlices,
    ).toBe("NodeNotReady");
  });
});
