import type { ProbeTarget } from "@swh/aggregation";
import type { ScheduledTarget } from "@swh/probes";
import { describe, expect, it } from "vitest";
import { planNodeTargets } from "../src/internal/probe-targets.js";
import { ProbeTracker, type SchedulerLike } from "../src/internal/probe-tracker.js";
import { swhInputFromObject } from "../src/internal/swh-input.js";
import { anHttpProbe, aPod, aSwhObject, aTcpProbe, NODE } from "./builders.js";

/** Records what the tracker asks of the scheduler; `passing` is what the thresholds say. */
class RecordingScheduler implements SchedulerLike {
  readonly targets = new Map<string, ScheduledTarget<ProbeTarget>>();
  readonly passing = new Map<string, boolean>();
  upsert(target: ScheduledTarget<ProbeTarget>): void {
    this.targets.set(target.id, target);
    if (!this.passing.has(target.id)) this.passing.set(target.id, target.seed?.passing ?? false);
  }
  remove(id: string): void {
    this.targets.delete(id);
    this.passing.delete(id);
  }
  state(id: string): { passing: boolean } | undefined {
    const passing = this.passing.get(id);
    return passing === undefined ? undefined : { passing };
  }
}

const swh = (name: string, probes = [aTcpProbe(8080)]) => {
  const input = swhInputFromObject(aSwhObject({ name, probes }));
  if (!input) throw new Error("bad builder");
  return input;
};

describe("ProbeTracker", () => {
  it("probes one target per distinct probe, shared by the SWHs using it", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => Date.parse("2026-01-01T00:00:00Z"));
    const plan = planNodeTargets([swh("a"), swh("b"), swh("c", [anHttpProbe(8080)])], [aPod()], NODE);
    tracker.sync(plan);
    expect(scheduler.targets.size).toBe(2);
    const tcp = [...scheduler.targets.values()].find((t) => t.probe.probe.mode === "TCP");
    expect(plan.users.get(tcp?.id ?? "")?.map((u) => u.name)).toEqual(["a", "b"]);
  });

  it("groups targets by namespace and bounds a timeout stored before the schema bounded it", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => 0);
    // Period 1 s (the builder's): a 3600 s timeout would hold a probe slot for an hour.
    const plan = planNodeTargets([swh("a", [aTcpProbe(8080, { timeoutSeconds: 3600 })])], [aPod()], NODE);
    tracker.sync(plan);
    const [scheduled] = scheduler.targets.values();
    expect(scheduled).toMatchObject({ group: "shop", probe: { probe: { timeoutSeconds: 1 } } });
    // The plan itself is left alone (it is shared with the aggregation).
    expect(plan.targets[0]?.probe.timeoutSeconds).toBe(3600);
  });

  it("waits out the initial delay counted from the pod's eligibility", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => Date.parse("2026-01-01T00:00:04Z"));
    const obj = aSwhObject({ probes: [aTcpProbe(8080)] });
    if (obj.spec?.healthcheck) obj.spec.healthcheck.initialDelaySeconds = 10;
    const input = swhInputFromObject(obj);
    tracker.sync(planNodeTargets(input ? [input] : [], [aPod()], NODE));
    expect([...scheduler.targets.values()].map((t) => [t.initialDelayMs, t.periodMs])).toEqual([
      [6000, 1000],
    ]);
  });

  it("starts seeded targets passing and reports their state without probing", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => 0);
    const plan = planNodeTargets([swh("a")], [aPod()], NODE);
    const id = plan.targets[0]?.id ?? "";
    tracker.sync(plan, new Map([[id, { passing: true }]]));
    expect(scheduler.targets.get(id)?.seed).toEqual({ passing: true });
    expect(tracker.states.get(id)).toEqual({ passing: true });
  });

  it("returns the affected SWHs only when the published state changes", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => 0);
    const plan = planNodeTargets([swh("a"), swh("b")], [aPod()], NODE);
    tracker.sync(plan);
    const id = plan.targets[0]?.id ?? "";
    const refused = { ok: false, reason: "ConnectionRefused" as const, message: "refused", durationMs: 1 };
    expect(tracker.recordResult(id, refused).map((u) => u.name)).toEqual(["a", "b"]);
    expect(tracker.recordResult(id, refused)).toEqual([]);
    scheduler.passing.set(id, true);
    expect(tracker.recordResult(id, { ok: true, message: "ok", durationMs: 1 }).length).toBe(2);
    expect(tracker.states.get(id)).toEqual({ passing: true });
  });

  it("stops targets whose pod is gone and forgets their state", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => 0);
    const plan = planNodeTargets([swh("a")], [aPod()], NODE);
    tracker.sync(plan);
    const id = plan.targets[0]?.id ?? "";
    tracker.recordResult(id, { ok: false, reason: "Timeout", message: "t", durationMs: 1 });
    tracker.sync(planNodeTargets([swh("a")], [], NODE));
    expect(scheduler.targets.size).toBe(0);
    expect(tracker.states.size).toBe(0);
    expect(tracker.recordResult(id, { ok: true, message: "late", durationMs: 1 })).toEqual([]);
  });

  it("never probes pods of other nodes", () => {
    const scheduler = new RecordingScheduler();
    const tracker = new ProbeTracker(scheduler, () => 0);
    tracker.sync(planNodeTargets([swh("a")], [aPod({ nodeName: "node-b" })], NODE));
    expect(scheduler.targets.size).toBe(0);
  });
});
