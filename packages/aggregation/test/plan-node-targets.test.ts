import { describe, expect, it } from "vitest";
import { diffTargets, type ProbeTarget, planNodeTargets, targetSchedule } from "../src/index.js";
import { anHttpProbe, aPod, aSwh, aTcpProbe } from "./builders.js";

const NODE = "node-a";
const swh = (name: string, probes = [aTcpProbe(8080)]) => aSwh({ name, probes });
const byId = (targets: readonly ProbeTarget[]) => new Map(targets.map((t) => [t.id, t]));

describe("planNodeTargets", () => {
  it("plans one target per distinct probe, shared by the SWHs using it", () => {
    const plan = planNodeTargets([swh("a"), swh("b"), swh("c", [anHttpProbe(8080)])], [aPod()], NODE);
    expect(plan.targets.length).toBe(2);
    const tcp = plan.targets.find((t) => t.probe.mode === "TCP");
    expect(plan.users.get(tcp?.id ?? "")?.map((u) => u.name)).toEqual(["a", "b"]);
  });

  it("never probes pods of other nodes", () => {
    expect(planNodeTargets([swh("a")], [aPod({ nodeName: "node-b" })], NODE).targets).toEqual([]);
  });

  it("plans the other SWHs when one cannot be planned, and returns the one that threw", () => {
    const broken = aSwh({ name: "broken", probes: [aTcpProbe(8080)] });
    // A stored object whose shape no longer fits: its probe list is not a list.
    (broken.spec.healthcheck as { probes: unknown }).probes = 42;
    const plan = planNodeTargets([broken, swh("a")], [aPod()], NODE);
    expect(plan.rejected.map((r) => r.swh.name)).toEqual(["broken"]);
    expect(plan.targets.length).toBe(1);
  });
});

describe("diffTargets", () => {
  it("stops targets whose pod is gone and leaves unchanged targets alone", () => {
    const running = byId(planNodeTargets([swh("a")], [aPod()], NODE).targets);
    expect(diffTargets(running, planNodeTargets([swh("a")], [aPod()], NODE).targets)).toEqual({
      upsert: [],
      remove: [],
    });
    expect(diffTargets(running, planNodeTargets([swh("a")], [], NODE).targets)).toEqual({
      upsert: [],
      remove: [...running.keys()],
    });
  });

  it("updates a target whose pod became eligible again (its initial delay restarts)", () => {
    const running = byId(planNodeTargets([swh("a")], [aPod()], NODE).targets);
    const restarted = planNodeTargets([swh("a")], [aPod({ eligibleSince: "2026-01-01T01:00:00Z" })], NODE);
    expect(diffTargets(running, restarted.targets).upsert).toEqual(restarted.targets);
  });
});

describe("targetSchedule", () => {
  it("groups targets by namespace and bounds a timeout stored before the schema bounded it", () => {
    // Period 10 s (the builder's): a 3600 s timeout would hold a probe slot for an hour.
    const plan = planNodeTargets([swh("a", [aTcpProbe(8080, { timeoutSeconds: 3600 })])], [aPod()], NODE);
    const [target] = plan.targets;
    if (!target) throw new Error("no target");
    expect(targetSchedule(target, 0)).toMatchObject({
      group: "default",
      probe: { probe: { timeoutSeconds: 10 } },
    });
    // The plan itself is left alone (it is shared with the aggregation).
    expect(target.probe.timeoutSeconds).toBe(3600);
  });

  it("waits out the initial delay counted from the pod's eligibility", () => {
    const [target] = planNodeTargets([swh("a")], [aPod()], NODE).targets;
    if (!target) throw new Error("no target");
    // Eligible at 00:00:00 with a 10 s initial delay, seen at 00:00:04.
    const schedule = targetSchedule(target, Date.parse("2026-01-01T00:00:04Z"));
    expect([schedule.initialDelayMs, schedule.periodMs]).toEqual([6000, 10_000]);
    expect(schedule).toMatchObject({ successThreshold: 1, failureThreshold: 3 });
  });
});
