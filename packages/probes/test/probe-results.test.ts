import { describe, expect, it } from "vitest";
import {
  nextPublishedResult as nextProbeState,
  type ProbeResult,
  ProbeResults,
  ProbeScheduler,
  type PublishedResult,
  samePublishedResult as sameProbeState,
} from "../src/index.js";
import { ManualClock } from "./helpers/manual-clock.js";

const refused = { ok: false, reason: "ConnectionRefused", message: "connection refused" };
const ok = { ok: true, message: "ok" };

describe("nextPublishedResult", () => {
  it("publishes a passing target without a reason", () => {
    expect(nextProbeState({ passing: false, reason: "Timeout" }, true, ok)).toEqual({ passing: true });
  });

  it("publishes the reason of the latest failure", () => {
    expect(nextProbeState(undefined, false, refused)).toEqual({
      passing: false,
      reason: "ConnectionRefused",
      message: "connection refused",
    });
  });

  it("keeps the failure reason while a failing target recovers below its success threshold", () => {
    const failing = { passing: false, reason: "HTTPStatus", message: "status 503" };
    expect(nextProbeState(failing, false, ok)).toBe(failing);
  });

  it("keeps failing-without-result for a new target whose first success is not enough", () => {
    expect(nextProbeState(undefined, false, ok)).toEqual({ passing: false });
  });

  it("keeps reporting a failure of a still-passing target as passing (below failureThreshold)", () => {
    expect(nextProbeState({ passing: true }, true, refused)).toEqual({ passing: true });
  });

  it("bounds long messages", () => {
    const state = nextProbeState(undefined, false, { ok: false, reason: "Error", message: "x".repeat(5000) });
    expect(state.message?.length).toBe(200);
  });
});

describe("samePublishedResult", () => {
  it("compares what is published", () => {
    expect(sameProbeState({ passing: true }, { passing: true })).toBe(true);
    expect(sameProbeState(undefined, { passing: false })).toBe(false);
    expect(sameProbeState({ passing: false, reason: "A" }, { passing: false, reason: "B" })).toBe(false);
  });
});

describe("ProbeResults", () => {
  it("reports an update only when the published state changes", () => {
    const updates: [string, PublishedResult][] = [];
    const results = new ProbeResults((id, state) => updates.push([id, state]));
    const refusedResult = { ok: false, reason: "ConnectionRefused" as const, message: "refused" };
    expect(results.record("t", false, refusedResult)).toBe(true);
    expect(results.record("t", false, refusedResult)).toBe(false);
    // A success below the success threshold publishes nothing new: the failure reason stays.
    expect(results.record("t", false, ok)).toBe(false);
    expect(results.record("t", true, ok)).toBe(true);
    expect(results.set("t", { passing: true })).toBe(false);
    expect(updates).toEqual([
      ["t", { passing: false, reason: "ConnectionRefused", message: "refused" }],
      ["t", { passing: true }],
    ]);
    results.remove("t");
    expect(results.get("t")).toBeUndefined();
    expect(updates).toHaveLength(2);
  });
});

describe("ProbeScheduler with a results store", () => {
  const pass: ProbeResult = { ok: true, message: "ok", durationMs: 1 };
  const fail: ProbeResult = { ok: false, reason: "Timeout", message: "timed out", durationMs: 1 };
  const target = (id: string, over: { seed?: PublishedResult; successThreshold?: number } = {}) => ({
    id,
    initialDelayMs: 0,
    periodMs: 1000,
    successThreshold: over.successThreshold ?? 1,
    failureThreshold: 1,
    probe: id,
    ...(over.seed ? { seed: over.seed } : {}),
  });

  function setup() {
    const outcome = new Map<string, ProbeResult>();
    const updates: string[] = [];
    const results = new ProbeResults((id, state) =>
      updates.push(`${id}:${state.passing}:${state.reason ?? ""}`),
    );
    const scheduler = new ProbeScheduler<string>({
      maxConcurrent: 10,
      clock: new ManualClock(),
      run: async (t) => outcome.get(t.id) ?? pass,
      results,
    });
    return { outcome, updates, results, scheduler };
  }

  it("publishes each probe's state there, reporting only changes", async () => {
    const { outcome, updates, results, scheduler } = setup();
    scheduler.upsert(target("a"));
    outcome.set("a", fail);
    await scheduler.runOnce("a");
    await scheduler.runOnce("a");
    outcome.set("a", pass);
    await scheduler.runOnce("a");
    await scheduler.runOnce("a");
    expect(updates).toEqual(["a:false:Timeout", "a:true:"]);
    expect(results.get("a")).toEqual({ passing: true });
  });

  it("starts a new target from its seed, reasons included, and forgets it with the target", async () => {
    const { outcome, updates, results, scheduler } = setup();
    scheduler.upsert(target("up", { seed: { passing: true } }));
    scheduler.upsert(target("down", { seed: { passing: false, reason: "HTTPStatus", message: "503" } }));
    expect(scheduler.state("up")?.passing).toBe(true);
    expect(results.get("down")).toEqual({ passing: false, reason: "HTTPStatus", message: "503" });
    // A seed for a target already scheduled changes nothing.
    scheduler.upsert(target("up", { seed: { passing: false, reason: "Timeout" } }));
    expect(results.get("up")).toEqual({ passing: true });
    updates.length = 0;
    // The published reason survives a success below the success threshold.
    scheduler.upsert(target("slow", { successThreshold: 2, seed: { passing: false, reason: "Timeout" } }));
    updates.length = 0;
    await scheduler.runOnce("slow");
    expect(results.get("slow")).toEqual({ passing: false, reason: "Timeout" });
    scheduler.remove("down");
    expect(results.get("down")).toBeUndefined();
    outcome.set("down", pass);
    expect(await scheduler.runOnce("down")).toBeUndefined();
    expect(updates).toEqual([]);
  });

  it("drops the result of a probe that ends after its target was removed", async () => {
    const { updates, results, scheduler } = setup();
    let release: (r: ProbeResult) => void = () => {};
    const held = new ProbeScheduler<string>({
      maxConcurrent: 10,
      clock: new ManualClock(),
      run: () => new Promise((resolve) => (release = resolve)),
      results,
    });
    held.upsert(target("a"));
    const probing = held.runOnce("a");
    held.remove("a");
    release(pass);
    expect(await probing).toBeUndefined();
    expect(results.get("a")).toBeUndefined();
    expect(updates).toEqual([]);
    scheduler.stop();
  });

  it("keeps the published states when it stops (a stopping agent must not see its targets unprobed)", async () => {
    const { outcome, results, scheduler } = setup();
    scheduler.upsert(target("a"));
    outcome.set("a", fail);
    await scheduler.runOnce("a");
    scheduler.stop();
    expect(results.get("a")).toEqual({ passing: false, reason: "Timeout", message: "timed out" });
  });
});
