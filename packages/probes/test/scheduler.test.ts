import { describe, expect, it } from "vitest";
import { type ProbeResult, ProbeScheduler, type ScheduledTarget, type TargetState } from "../src/index.js";
import { flushMicrotasks, ManualClock } from "./helpers/manual-clock.js";

const pass: ProbeResult = { ok: true, message: "ok", durationMs: 1 };
const fail: ProbeResult = { ok: false, reason: "ConnectionRefused", message: "refused", durationMs: 1 };

function aTarget(id: string, over: Partial<ScheduledTarget<string>> = {}): ScheduledTarget<string> {
  return {
    id,
    initialDelayMs: 0,
    periodMs: 1000,
    successThreshold: 1,
    failureThreshold: 2,
    probe: id,
    ...over,
  };
}

/** A scheduler whose probes are answered by the test: `outcome` per target, or held open until released. */
function setup(opts: { maxConcurrent?: number; random?: () => number; hold?: boolean } = {}) {
  const clock = new ManualClock();
  const outcome = new Map<string, ProbeResult>();
  const started: { id: string; at: number; signal: AbortSignal; release: (r: ProbeResult) => void }[] = [];
  const transitions: [string, TargetState][] = [];
  const scheduler = new ProbeScheduler<string>({
    maxConcurrent: opts.maxConcurrent ?? 100,
    clock,
    random: opts.random ?? (() => 0),
    observer: { transition: (id, state) => transitions.push([id, state]) },
    run: (target, signal) =>
      new Promise((resolve) => {
        started.push({ id: target.id, at: clock.now(), signal, release: resolve });
        if (!opts.hold) resolve(outcome.get(target.id) ?? pass);
      }),
  });
  return { clock, outcome, started, transitions, scheduler };
}

describe("ProbeScheduler", () => {
  it("waits the initial delay, then probes every period and reports only transitions", async () => {
    const { clock, outcome, started, transitions, scheduler } = setup();
    scheduler.upsert(aTarget("a", { initialDelayMs: 5000 }));
    await clock.advance(4999);
    expect(started).toHaveLength(0);
    await clock.advance(1);
    expect(started.map((s) => s.at)).toEqual([5000]);
    expect(transitions).toEqual([["a", expect.objectContaining({ passing: true })]]);
    await clock.advance(3000);
    expect(started.map((s) => s.at)).toEqual([5000, 6000, 7000, 8000]);
    expect(transitions).toHaveLength(1); // still passing: no further reports
    outcome.set("a", fail);
    await clock.advance(1000);
    expect(scheduler.state("a")).toMatchObject({ passing: true, consecutive: 1, lastResult: fail });
    await clock.advance(1000);
    expect(transitions.map(([, s]) => s.passing)).toEqual([true, false]);
    expect(transitions[1]?.[1].lastResult?.reason).toBe("ConnectionRefused");
  });

  it("state() gives the latest result of each probe, and a state read earlier never changes", async () => {
    const { clock, outcome, scheduler } = setup();
    scheduler.upsert(aTarget("a"));
    outcome.set("a", { ok: true, message: "connected", durationMs: 3 });
    await clock.advance(0);
    const first = scheduler.state("a");
    outcome.set("a", { ok: true, message: "connected", durationMs: 7 });
    await clock.advance(1000);
    expect(scheduler.state("a")?.lastResult).toEqual({ ok: true, message: "connected", durationMs: 7 });
    expect(first?.lastResult).toEqual({ ok: true, message: "connected", durationMs: 3 });
    outcome.set("a", { ok: true, message: "connected again", durationMs: 2 });
    await clock.advance(1000);
    expect(scheduler.state("a")?.lastResult).toEqual({ ok: true, message: "connected again", durationMs: 2 });
    outcome.set("a", { ...fail, durationMs: 9 });
    await clock.advance(1000);
    expect(scheduler.state("a")?.lastResult).toEqual({ ...fail, durationMs: 9 });
    const timings = { connectMs: 1, totalMs: 4 };
    outcome.set("a", { ...fail, durationMs: 4, timings });
    await clock.advance(1000);
    expect(scheduler.state("a")?.lastResult).toEqual({ ...fail, durationMs: 4, timings });
  });

  it("spreads first probes over one period with the random source", async () => {
    const values = [0, 0.5, 0.25];
    const { clock, started, scheduler } = setup({ random: () => values.shift() ?? 0 });
    for (const id of ["a", "b", "c"]) scheduler.upsert(aTarget(id));
    await clock.advance(999);
    expect(started.map((s) => [s.id, s.at])).toEqual([
      ["a", 0],
      ["c", 250],
      ["b", 500],
    ]);
  });

  it("keeps at most one probe in flight per target and skips slots meanwhile", async () => {
    const { clock, started, scheduler } = setup({ hold: true });
    scheduler.upsert(aTarget("a"));
    await clock.advance(3500);
    expect(started).toHaveLength(1);
    started[0]?.release(pass);
    await flushMicrotasks();
    await clock.advance(1000);
    expect(started.map((s) => s.at)).toEqual([0, 4000]);
  });

  it("never runs more than maxConcurrent probes and runs queued ones as slots free up", async () => {
    const { clock, started, scheduler } = setup({ hold: true, maxConcurrent: 2 });
    // One group each, so that no group's share is what holds them back (see scheduler-fairness.test.ts).
    for (const id of ["a", "b", "c", "d"]) scheduler.upsert(aTarget(id, { group: id }));
    await clock.advance(0);
    expect(started.map((s) => s.id)).toEqual(["a", "b"]);
    expect(scheduler.running).toBe(2);
    started[0]?.release(pass);
    await flushMicrotasks();
    expect(started.map((s) => s.id)).toEqual(["a", "b", "c"]);
  });

  it("starts a seeded target passing so it does not flap after a restart", async () => {
    const { clock, outcome, transitions, scheduler } = setup();
    outcome.set("a", fail);
    scheduler.upsert(aTarget("a", { seed: { passing: true } }));
    expect(scheduler.state("a")?.passing).toBe(true);
    await clock.advance(0);
    expect(transitions).toEqual([]);
    await clock.advance(1000);
    expect(transitions.map(([, s]) => s.passing)).toEqual([false]);
  });

  it("remove aborts an in-flight probe and ignores its result; stop clears every timer", async () => {
    const { clock, started, transitions, scheduler } = setup({ hold: true });
    scheduler.upsert(aTarget("a"));
    scheduler.upsert(aTarget("b"));
    await clock.advance(0);
    scheduler.remove("a");
    expect(started[0]?.signal.aborted).toBe(true);
    started[0]?.release(pass);
    await flushMicrotasks();
    expect(scheduler.state("a")).toBeUndefined();
    expect(transitions.map(([id]) => id)).not.toContain("a");
    scheduler.stop();
    expect(started[1]?.signal.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    scheduler.upsert(aTarget("c"));
    expect(scheduler.ids()).toEqual([]);
  });

  it("replacing a target keeps its state and applies new thresholds and period", async () => {
    const { clock, outcome, started, transitions, scheduler } = setup();
    scheduler.upsert(aTarget("a"));
    await clock.advance(0);
    expect(scheduler.state("a")?.passing).toBe(true);
    scheduler.upsert(aTarget("a", { periodMs: 500, failureThreshold: 1 }));
    expect(scheduler.state("a")?.passing).toBe(true);
    outcome.set("a", fail);
    await clock.advance(500);
    expect(started.map((s) => s.at)).toEqual([0, 0, 500]);
    expect(transitions.map(([, s]) => s.passing)).toEqual([true, false]);
  });

  it("stops when its signal aborts", async () => {
    const controller = new AbortController();
    const clock = new ManualClock();
    let runs = 0;
    const scheduler = new ProbeScheduler({
      maxConcurrent: 1,
      clock,
      random: () => 0,
      signal: controller.signal,
      run: async () => {
        runs++;
        return pass;
      },
    });
    scheduler.upsert(aTarget("a"));
    await clock.advance(1000);
    controller.abort();
    await clock.advance(5000);
    expect(runs).toBe(2);
  });

  it("turns a throwing run function into a failed result", async () => {
    const clock = new ManualClock();
    const scheduler = new ProbeScheduler({
      maxConcurrent: 1,
      clock,
      run: async () => {
        throw new Error("boom");
      },
    });
    scheduler.upsert(aTarget("a", { seed: { passing: true }, failureThreshold: 1 }));
    const state = await scheduler.runOnce("a");
    expect(state).toMatchObject({ passing: false, lastResult: { ok: false, reason: "Error" } });
  });

  it("keeps scheduling when a hook throws and hands the error to the observer's error hook", async () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    let runs = 0;
    const scheduler = new ProbeScheduler({
      maxConcurrent: 1,
      clock,
      random: () => 0,
      observer: {
        error: (e) => errors.push(e),
        transition: () => {
          throw new Error("consumer bug");
        },
      },
      run: async () => {
        runs++;
        return clock.now() < 1000 ? pass : fail;
      },
    });
    scheduler.upsert(aTarget("a", { failureThreshold: 1 }));
    scheduler.upsert(aTarget("b", { failureThreshold: 1 }));
    await clock.advance(1000);
    expect(runs).toBe(4);
    expect(errors.map((e) => (e as Error).message)).toEqual([
      "consumer bug",
      "consumer bug",
      "consumer bug",
      "consumer bug",
    ]);
  });
});

describe("ProbeScheduler wake-ups", () => {
  it("starts each slot at the tick boundary nearest to it, sharing one timer among all targets", async () => {
    const clock = new ManualClock();
    const starts: [string, number][] = [];
    const values = [0.0012, 0.0031, 0.0074, 0.0076];
    const scheduler = new ProbeScheduler<string>({
      maxConcurrent: 10,
      clock,
      tickMs: 5,
      random: () => values.shift() ?? 0,
      run: async (target) => {
        starts.push([target.id, clock.now()]);
        return { ok: true, message: "ok", durationMs: 0 };
      },
    });
    // First slots at 1.2, 3.1, 7.4 and 7.6 ms: nearest boundaries 0, 5, 5 and 10 (at most 2.5 ms off).
    for (const id of ["a", "b", "c", "d"]) scheduler.upsert(aTarget(id));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(0);
    expect(starts).toEqual([["a", 0]]);
    await clock.advance(4);
    expect(starts).toHaveLength(1);
    await clock.advance(1);
    expect(starts).toEqual([
      ["a", 0],
      ["b", 5],
      ["c", 5],
    ]);
    await clock.advance(5);
    expect(starts.at(-1)).toEqual(["d", 10]);
    expect(clock.pendingTimers).toBe(1);
    // The grid stays the target's own: a's next slot is 1001.2, started at the boundary nearest to it.
    await clock.advance(990);
    expect(starts.at(-1)).toEqual(["a", 1000]);
  });
});
