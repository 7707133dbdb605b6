/**
 * Adaptive periods (ADR 0037): the scheduler probes a target faster while its result is changing and slower while
 * it is down, on an injected clock; and the pure rule it follows.
 */
import { describe, expect, it } from "vitest";
import { adaptivePeriodMs, type ProbeResult, ProbeScheduler, type ScheduledTarget } from "../src/index.js";
import { ManualClock } from "./helpers/manual-clock.js";

const pass: ProbeResult = { ok: true, message: "ok", durationMs: 1 };
const fail: ProbeResult = { ok: false, reason: "ConnectionRefused", message: "refused", durationMs: 1 };

function setup(target: Partial<ScheduledTarget<string>>) {
  const clock = new ManualClock();
  let outcome = pass;
  const started: number[] = [];
  const scheduler = new ProbeScheduler<string>({
    maxConcurrent: 10,
    clock,
    random: () => 0,
    run: async () => {
      started.push(clock.now());
      return outcome;
    },
  });
  scheduler.upsert({
    id: "a",
    initialDelayMs: 0,
    periodMs: 10_000,
    successThreshold: 2,
    failureThreshold: 3,
    probe: "a",
    ...target,
  });
  return {
    clock,
    started,
    scheduler,
    set: (r: ProbeResult) => {
      outcome = r;
    },
  };
}

describe("adaptivePeriodMs", () => {
  const periods = { periodMs: 10_000, transitionPeriodMs: 1_000, downPeriodMs: 30_000 };
  it.each([
    ["passing, nothing disagrees", { passing: true, consecutive: 0 }, true, 10_000],
    ["passing, one failure so far", { passing: true, consecutive: 1 }, true, 1_000],
    ["failing, one success so far", { passing: false, consecutive: 1 }, true, 1_000],
    ["down after it passed", { passing: false, consecutive: 0 }, true, 30_000],
    ["never passed (coming up)", { passing: false, consecutive: 0 }, false, 10_000],
  ] as const)("%s → %i ms", (_what, state, everPassed, expected) => {
    expect(adaptivePeriodMs(periods, state, everPassed)).toBe(expected);
  });

  it("falls back to the period for an adaptive period not set", () => {
    expect(adaptivePeriodMs({ periodMs: 5_000 }, { passing: true, consecutive: 2 }, true)).toBe(5_000);
    expect(adaptivePeriodMs({ periodMs: 5_000 }, { passing: false, consecutive: 0 }, true)).toBe(5_000);
  });
});

describe("ProbeScheduler with adaptive periods", () => {
  it("probes every transitionPeriodMs between thresholds, every downPeriodMs when down, back to periodMs when up", async () => {
    const { clock, started, scheduler, set } = setup({ transitionPeriodMs: 1_000, downPeriodMs: 30_000 });
    // Coming up: 0 (1st success) → 1 s later (2nd success: passing), then the normal period.
    await clock.advance(1_000);
    expect(started).toEqual([0, 1_000]);
    expect(scheduler.state("a")).toMatchObject({ passing: true });
    await clock.advance(10_000);
    expect(started).toEqual([0, 1_000, 11_000]);

    // It fails: the next two probes come 1 s apart and it is down after the third failure (failureThreshold 3).
    set(fail);
    await clock.advance(10_000);
    await clock.advance(2_000);
    expect(started.slice(3)).toEqual([21_000, 22_000, 23_000]);
    expect(scheduler.state("a")).toMatchObject({ passing: false, consecutive: 0 });

    // Down: every 30 s, not every 10 s.
    await clock.advance(60_000);
    expect(started.slice(6)).toEqual([53_000, 83_000]);

    // It recovers: the first success moves it to the transition period, the second brings it in.
    set(pass);
    await clock.advance(30_000);
    await clock.advance(1_000);
    expect(started.slice(8)).toEqual([113_000, 114_000]);
    expect(scheduler.state("a")).toMatchObject({ passing: true });
    await clock.advance(10_000);
    expect(started.slice(10)).toEqual([124_000]);
  });

  it("without adaptive periods keeps one fixed grid whatever the results", async () => {
    const { clock, started, set } = setup({});
    await clock.advance(20_000);
    set(fail);
    await clock.advance(40_000);
    expect(started).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
  });

  it("a target that never passed keeps the normal period while it fails (a starting pod is let in on time)", async () => {
    const { clock, started, set } = setup({ transitionPeriodMs: 1_000, downPeriodMs: 30_000 });
    set(fail);
    await clock.advance(30_000);
    expect(started).toEqual([0, 10_000, 20_000, 30_000]);
  });

  it("refuses a period that is not positive, naming it", () => {
    const { scheduler } = setup({});
    expect(() =>
      scheduler.upsert({
        id: "b",
        initialDelayMs: 0,
        periodMs: 1_000,
        downPeriodMs: 0,
        successThreshold: 1,
        failureThreshold: 1,
        probe: "b",
      }),
    ).toThrow(/downPeriodMs must be > 0/);
  });
});
