/**
 * How the scheduler shares its concurrency slots between groups (ADR 0016): a group's hanging probes cannot hold
 * the slots another group needs, groups are served in turn, and the global cap always holds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type MonotonicClock,
  type ProbeResult,
  ProbeScheduler,
  type ScheduledTarget,
  type TimerHandle,
} from "../src/index.js";
import { flushMicrotasks, ManualClock } from "./helpers/manual-clock.js";

const pass: ProbeResult = { ok: true, message: "ok", durationMs: 1 };

function aTarget(id: string, group: string, over: Partial<ScheduledTarget<string>> = {}) {
  return {
    id,
    group,
    initialDelayMs: 0,
    periodMs: 1000,
    successThreshold: 1,
    failureThreshold: 1,
    probe: id,
    ...over,
  } satisfies ScheduledTarget<string>;
}

interface Started {
  id: string;
  group: string;
  at: number;
  release: (r: ProbeResult) => void;
}

/** A scheduler whose probes hang until the test releases them (or answer at once when `answer` is set). */
function setup(maxConcurrent: number, clock: MonotonicClock = new ManualClock()) {
  const started: Started[] = [];
  const held = new Set<Started>();
  const control = { answer: false };
  const passing = new Set<string>();
  const scheduler = new ProbeScheduler<string>({
    maxConcurrent,
    clock,
    random: () => 0,
    observer: { transition: (id, state) => (state.passing ? passing.add(id) : passing.delete(id)) },
    run: (target) =>
      new Promise((resolve) => {
        const s: Started = {
          id: target.id,
          group: target.group ?? "",
          at: clock.now(),
          release: (r) => {
            held.delete(s);
            resolve(r);
          },
        };
        started.push(s);
        if (control.answer) resolve(pass);
        else held.add(s);
      }),
  });
  const runningOf = (group: string) => [...held].filter((s) => s.group === group).length;
  return { scheduler, started, held, control, passing, runningOf };
}

describe("ProbeScheduler fairness between groups", () => {
  it("publishes a new group's target within its first period while another group's 160 probes hang", async () => {
    const clock = new ManualClock();
    const { scheduler, started, passing, runningOf } = setup(100, clock);
    for (let i = 0; i < 160; i++) scheduler.upsert(aTarget(`a${i}`, "tenant-a", { periodMs: 60_000 }));
    await clock.advance(0);
    // One group alone takes half the slots: the other half waits for a group that becomes active.
    expect(runningOf("tenant-a")).toBe(50);
    expect(scheduler.waiting).toBe(110);

    scheduler.upsert(aTarget("b", "tenant-b", { periodMs: 2000 }));
    await clock.advance(0);
    expect(started.at(-1)).toMatchObject({ id: "b", at: 0 });
    started.at(-1)?.release(pass);
    await flushMicrotasks();
    expect(passing.has("b")).toBe(true);
    // tenant-a's share shrank to floor(100 / 3) = 33: it starts nothing more until it is below it.
    expect(runningOf("tenant-a")).toBe(50);
  });

  it("without groups, behaves as one group: half the slots", async () => {
    const clock = new ManualClock();
    const scheduler = new ProbeScheduler<string>({
      maxConcurrent: 4,
      clock,
      random: () => 0,
      run: () => new Promise(() => {}),
    });
    for (const id of ["a", "b", "c"]) {
      const { group: _none, ...ungrouped } = aTarget(id, "");
      scheduler.upsert(ungrouped);
    }
    await clock.advance(0);
    expect([scheduler.running, scheduler.waiting]).toEqual([2, 1]);
  });

  it("serves the groups with waiting probes in turn, one probe each", async () => {
    const clock = new ManualClock();
    const { scheduler, started } = setup(1, clock);
    for (const id of ["a1", "a2", "a3"]) scheduler.upsert(aTarget(id, "a"));
    for (const id of ["b1", "b2"]) scheduler.upsert(aTarget(id, "b"));
    await clock.advance(0);
    for (let i = 0; i < 4; i++) {
      started.at(-1)?.release(pass);
      await flushMicrotasks();
    }
    expect(started.map((s) => s.id)).toEqual(["a1", "b1", "a2", "b2", "a3"]);
  });

  it("forgets a removed waiting probe and moves a waiting probe whose group changed", async () => {
    const clock = new ManualClock();
    const { scheduler, started, runningOf } = setup(4, clock);
    for (const id of ["a1", "a2", "a3", "a4"]) scheduler.upsert(aTarget(id, "a"));
    await clock.advance(0);
    expect([runningOf("a"), scheduler.waiting]).toEqual([2, 2]);
    scheduler.remove("a3");
    scheduler.upsert(aTarget("a4", "c"));
    expect(scheduler.waiting).toBe(1);
    // a4 now waits in group c, which has no running probe: it starts as soon as a slot is free for it.
    started[0]?.release(pass);
    await flushMicrotasks();
    expect(started.map((s) => s.id)).toEqual(["a1", "a2", "a4"]);
    expect(scheduler.waiting).toBe(0);
  });

  it("keeps the global cap, each group's share at every start, and runs every waiting probe", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 1500 }) }),
      fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(op, { maxLength: 40 }),
        async (maxConcurrent, targets, ops) => {
          const clock = new ManualClock();
          const { scheduler, started, held, control } = setup(maxConcurrent, clock);
          const violations: string[] = [];
          // Checks each start against the state just before it: held probes of other groups are running.
          const checked = new Set<Started>();
          const check = () => {
            for (const s of started) {
              if (checked.has(s)) continue;
              checked.add(s);
              const before = [...held].filter((h) => h !== s && checked.has(h));
              if (before.length + 1 > maxConcurrent) violations.push(`global cap exceeded by ${s.id}`);
              const busyGroups = new Set([...before.map((h) => h.group), s.group]);
              const share = Math.max(1, Math.floor(maxConcurrent / (busyGroups.size + 1)));
              const own = before.filter((h) => h.group === s.group).length;
              if (own >= share)
                violations.push(`${s.group} started ${s.id} with ${own} running, share ${share}`);
            }
          };
          const ids: string[] = [];
          targets.forEach(([group, period], i) => {
            const id = `t${i}`;
            ids.push(id);
            scheduler.upsert(aTarget(id, `g${group}`, { periodMs: period * 1000 }));
          });
          const live = new Set(ids);
          for (const o of ops) {
            if (o.kind === "advance") await clock.advance(o.ms);
            else if (o.kind === "release") [...held][o.pick % Math.max(1, held.size)]?.release(pass);
            else if (live.size > 1) {
              const id = [...live][o.pick % live.size] as string;
              live.delete(id);
              scheduler.remove(id);
            }
            await flushMicrotasks();
            check();
          }
          expect(violations).toEqual([]);
          expect(scheduler.running).toBeLessThanOrEqual(maxConcurrent);
          // Liveness: once probes end, every target still there runs within its period.
          control.answer = true;
          for (const h of [...held]) h.release(pass);
          await flushMicrotasks();
          const from = started.length;
          await clock.advance(3000);
          const ran = new Set(started.slice(from).map((s) => s.id));
          expect([...live].filter((id) => !ran.has(id))).toEqual([]);
          expect(scheduler.waiting).toBe(0);
          scheduler.stop();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("ProbeScheduler and a clock that cuts long delays short", () => {
  /** Like Node's timers under `monotonicClock`: a delay above the limit fires at the limit. */
  class CappedClock extends ManualClock {
    override setTimeout(fn: () => void, ms: number): TimerHandle {
      return super.setTimeout(fn, Math.min(ms, 1000));
    }
  }

  it("does not probe before the slot when woken early, and probes at it", async () => {
    const clock = new CappedClock();
    const { scheduler, started } = setup(10, clock);
    scheduler.upsert(aTarget("a", "g", { initialDelayMs: 5000 }));
    await clock.advance(4990);
    expect(started).toHaveLength(0);
    await clock.advance(10);
    expect(started.map((s) => s.at)).toEqual([5000]);
  });
});
