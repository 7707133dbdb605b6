import { describe, expect, it } from "vitest";
import { LIVE_GET_RETRY_MS, type NodeFacts, nodeCleanupFacts, planNodeCleanup } from "../src/index.js";
import { aLease, aNode } from "./node-builders.js";

const NOW = "2026-12-02T10:10:00Z";
const GRACE = 5 * 60_000;
const KEEP = { deleteSlices: false, heartbeatStale: false, notReadyAgentAlive: false };
const FRESH = aLease("2026-12-02T10:09:50Z", 40); // expires in 30 s
const EXPIRED = aLease("2026-12-02T10:09:00Z", 40);
const SICK = aNode("n1", "False", "2026-12-02T10:04:00Z"); // NotReady for 6 min: beyond the grace

describe("planNodeCleanup", () => {
  it.each<[string, Partial<NodeFacts>, object]>([
    // A Node missing from the cache: only a live 404 proves it is gone.
    [
      "cache says gone, slices, no live GET yet → GET it first",
      { node: undefined },
      { ...KEEP, confirmWithLiveGet: true },
    ],
    [
      "cache says gone, live GET 404 → delete at once",
      { node: undefined, live: { outcome: "NotFound" } },
      { ...KEEP, deleteSlices: "NodeDeleted" },
    ],
    [
      "cache says gone, live GET failed → keep, look again later",
      { node: undefined, live: { outcome: "Failed", message: "timeout" } },
      { ...KEEP, recheckAfterMs: LIVE_GET_RETRY_MS },
    ],
    [
      "cache says gone, live GET finds it Ready with a fresh heartbeat → keep (the cache was behind)",
      { node: undefined, live: { outcome: "Found", node: aNode("n1", "True") }, lease: FRESH },
      { ...KEEP, recheckAfterMs: 30_000 },
    ],
    [
      "cache says gone, live GET finds it NotReady beyond the grace, silent agent → delete for NotReady",
      { node: undefined, live: { outcome: "Found", node: SICK }, lease: EXPIRED },
      { ...KEEP, deleteSlices: "NodeNotReady" },
    ],
    ["deleted Node without slices → nothing, no GET", { node: undefined, hasSlices: false }, KEEP],
    // NotReady: the slices go only when the agent cannot act.
    [
      "NotReady beyond the grace, no heartbeat Lease → delete",
      { node: SICK },
      { ...KEEP, deleteSlices: "NodeNotReady" },
    ],
    [
      "NotReady beyond the grace, expired heartbeat → delete",
      { node: SICK, lease: EXPIRED },
      { ...KEEP, deleteSlices: "NodeNotReady" },
    ],
    [
      "NotReady beyond the grace, fresh heartbeat → keep, report, recheck when it would expire",
      { node: SICK, lease: FRESH },
      { ...KEEP, notReadyAgentAlive: true, recheckAfterMs: 30_000 },
    ],
    ["NotReady beyond the grace without slices → nothing", { node: SICK, hasSlices: false }, KEEP],
    [
      "Unknown within the grace → recheck when it ends",
      { node: aNode("n1", "Unknown", "2026-12-02T10:08:00Z") },
      { ...KEEP, recheckAfterMs: 3 * 60_000 },
    ],
    // Ready: a silent agent is reported, never cleaned up.
    [
      "Ready with a fresh heartbeat → recheck when it would expire",
      { node: aNode("n1", "True"), lease: FRESH },
      { ...KEEP, recheckAfterMs: 30_000 },
    ],
    [
      "Ready with an expired heartbeat → reported, slices kept",
      { node: aNode("n1", "True"), lease: EXPIRED },
      { ...KEEP, heartbeatStale: true },
    ],
    [
      "Ready, slices but no heartbeat Lease → reported",
      { node: aNode("n1", "True") },
      { ...KEEP, heartbeatStale: true },
    ],
    [
      "Ready, slices but no heartbeat Lease yet, due 10 s ago → no report; recheck when a Lease duration passed",
      { node: aNode("n1", "True"), heartbeatDueSince: "2026-12-02T10:09:50Z" },
      { ...KEEP, recheckAfterMs: 30_000 },
    ],
    [
      "Ready, slices but no heartbeat Lease, due a Lease duration ago → reported",
      { node: aNode("n1", "True"), heartbeatDueSince: "2026-12-02T10:09:20Z" },
      { ...KEEP, heartbeatStale: true },
    ],
    [
      "Ready with an expired heartbeat, even just due → reported (it was renewed, then stopped)",
      { node: aNode("n1", "True"), lease: EXPIRED, heartbeatDueSince: "2026-12-02T10:09:59Z" },
      { ...KEEP, heartbeatStale: true },
    ],
    [
      "Ready, expired heartbeat, but a slice created after it expired, 10 s ago → no report; recheck",
      { node: aNode("n1", "True"), lease: EXPIRED, newestSliceCreated: "2026-12-02T10:09:50Z" },
      { ...KEEP, recheckAfterMs: 30_000 },
    ],
    [
      "Ready, expired heartbeat, a slice created after it expired 15 s ago → no report; recheck when a Lease duration passed",
      { node: aNode("n1", "True"), lease: EXPIRED, newestSliceCreated: "2026-12-02T10:09:45Z" },
      { ...KEEP, recheckAfterMs: 25_000 },
    ],
    [
      "Ready, expired heartbeat, newest slice created before it expired → reported",
      { node: aNode("n1", "True"), lease: EXPIRED, newestSliceCreated: "2026-12-02T10:09:30Z" },
      { ...KEEP, heartbeatStale: true },
    ],
    [
      "Ready, expired heartbeat, a slice created after it expired but over a Lease duration ago → reported",
      {
        node: aNode("n1", "True"),
        lease: aLease("2026-12-02T10:08:00Z", 40),
        newestSliceCreated: "2026-12-02T10:09:10Z",
      },
      { ...KEEP, heartbeatStale: true },
    ],
    ["Ready without slices → nothing to report", { node: aNode("n1", "True"), hasSlices: false }, KEEP],
  ])("%s", (_name, facts, expected) => {
    expect(
      planNodeCleanup({
        node: undefined,
        lease: undefined,
        hasSlices: true,
        now: NOW,
        notReadyGraceMs: GRACE,
        ...facts,
      }),
    ).toEqual(expected);
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

describe("nodeCleanupFacts", () => {
  const objects = {
    name: "n1",
    node: aNode("n1", "True"),
    lease: FRESH,
    sliceCreated: ["2026-12-02T10:05:00Z", undefined, "2026-12-02T10:01:00Z"],
    leadingSince: new Date("2026-12-02T10:00:00Z"),
    now: NOW,
    notReadyGraceMs: GRACE,
  };

  it("dates the heartbeat from the oldest slice when it is younger than the term, and keeps the newest slice", () => {
    const facts = nodeCleanupFacts(objects);
    expect(facts).toMatchObject({
      node: objects.node,
      lease: FRESH,
      hasSlices: true,
      now: NOW,
      notReadyGraceMs: GRACE,
    });
    expect(facts.heartbeatDueSince).toEqual(new Date("2026-12-02T10:01:00Z"));
    expect(facts.newestSliceCreated).toEqual(new Date("2026-12-02T10:05:00Z"));
  });

  it("dates the heartbeat from the start of leading when the slices are older or there are none", () => {
    const older = nodeCleanupFacts({ ...objects, sliceCreated: ["2026-12-01T00:00:00Z"] });
    expect(older.heartbeatDueSince).toEqual(objects.leadingSince);
    const none = nodeCleanupFacts({ ...objects, sliceCreated: [] });
    expect(none).toMatchObject({ hasSlices: false, newestSliceCreated: undefined });
    expect(none.heartbeatDueSince).toEqual(objects.leadingSince);
  });

  it("ignores a Lease of that name that another node holds, so its heartbeat does not count for this node", () => {
    const other = aLease("2026-12-02T10:09:50Z", 40, "n2");
    const facts = nodeCleanupFacts({ ...objects, lease: other });
    expect(facts.lease).toBeUndefined();
    // Without a heartbeat of its own, a Ready node with slices is reported once the Lease duration has passed.
    expect(planNodeCleanup(facts)).toEqual({ ...KEEP, heartbeatStale: true });
    expect(planNodeCleanup(nodeCleanupFacts(objects))).toMatchObject({ heartbeatStale: false });
  });
});
