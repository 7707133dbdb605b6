/**
 * Runs probes on a schedule and reports threshold transitions — the timing loop, kept apart from one step
 * (`runOnce`) as in the kubelet prober, so tests drive the step directly and the loop with an injected clock.
 *
 * Timing: a target's first probe runs `initialDelayMs` after `upsert` plus a random part of one period (so
 * targets added together spread out, like the kubelet's worker start), then every `periodMs` on a fixed grid
 * (a slow probe never shifts the grid). With adaptive periods (ADR 0037) the grid moves when a result changes the
 * period a target needs (`adaptivePeriodMs`): its next slot is the new period after the slot just probed. When a slot comes while the previous probe of the target is still
 * running or waiting for a concurrency slot, that slot is skipped: at most one probe per target at a time.
 *
 * Cost: every target's next slot sits in one min-heap and a single timer is armed for the earliest. Wake-ups
 * happen on multiples of `tickMs` (default 10 ms), each starting the slots nearest to it, so a probe starts at
 * most half a tick early or late. Waking an idle Node process costs about 0.1 ms of CPU here, as much as a
 * probe's own connect: one wake-up per tick instead of one per probe shares it (ADR 0011).
 *
 * Fairness: due probes wait for one of `maxConcurrent` slots in per-group lines served in turn, and a group may
 * hold only its share of the slots, so one group's hanging probes cannot delay another group's (ADR 0016; the
 * policy is in `internal/fair-queue.ts`).
 */

import { adaptivePeriodMs } from "./adaptive-period.js";
import { type MonotonicClock, monotonicClock, type TimerHandle } from "./clock.js";
import { type DueItem, DueQueue } from "./internal/due-queue.js";
import { type FairItem, type FairLinks, FairQueue, fairLinks } from "./internal/fair-queue.js";
import type { ProbeResult } from "./probe-result.js";
import type { ProbeResults, PublishedResult } from "./probe-results.js";
import {
  initialThresholdState,
  nextThresholdState,
  seededThresholdState,
  type ThresholdState,
} from "./threshold.js";

/** A target to probe; `probe` is the caller's payload handed back to `run` (address + probe config). */
export interface ScheduledTarget<P = unknown> {
  id: string;
  /** Delay before the first probe, counted from `upsert` (callers subtract time already elapsed). */
  initialDelayMs: number;
  periodMs: number;
  /** Period while the result is changing (between thresholds); default `periodMs` (ADR 0037). */
  transitionPeriodMs?: number;
  /** Period while the target is down (failing after it passed); default `periodMs` (ADR 0037). */
  downPeriodMs?: number;
  successThreshold: number;
  failureThreshold: number;
  /**
   * Start from this state instead of failing (e.g. what was published before a restart); with a `results` store
   * it is published there too. Only a new target is seeded.
   */
  seed?: PublishedResult;
  /**
   * Who the target belongs to (the agent passes the pod's namespace): groups share the probe slots fairly.
   * Targets without a group form one group of their own.
   */
  group?: string;
  probe: P;
}

/** The observable state of a target: threshold state plus the last result, if any. */
export interface TargetState extends ThresholdState {
  lastResult?: ProbeResult<string>;
}

/** When a probe was due and when it actually started (clock milliseconds), for metrics and benchmarks. */
export interface ProbeTiming {
  scheduledAt: number;
  startedAt: number;
}

/** Construction options; `run` must resolve (a failing target is a result) and should honour `signal`. */
export interface ProbeSchedulerOptions<P> {
  /**
   * Most probes running at once. One group may use at most `floor(maxConcurrent / (activeGroups + 1))` of them
   * (at least 1), so a single group uses up to half.
   */
  maxConcurrent: number;
  run: (target: ScheduledTarget<P>, signal: AbortSignal) => Promise<ProbeResult<string>>;
  /** What the scheduler tells about each probe (logs, metrics); every hook is optional. */
  observer?: ProbeObserver;
  /**
   * Where each target's published state is kept: recorded after every probe (it reports only changes), seeded
   * from `ScheduledTarget.seed`, and forgotten with the target.
   */
  results?: ProbeResults;
  clock?: MonotonicClock;
  /** Wake-up granularity in ms (default `DEFAULT_TICK_MS`): slots start at the nearest multiple of it. */
  tickMs?: number;
  /** Uniform [0, 1) source for the start jitter. */
  random?: () => number;
  /** Aborting it stops the scheduler, like `stop()`. */
  signal?: AbortSignal;
}

/** Hooks a scheduler calls as it probes. */
export interface ProbeObserver {
  /** Called when a target's `passing` flips — and only then. */
  transition?(id: string, state: TargetState): void;
  /** Called after every probe (metrics). */
  result?(id: string, result: ProbeResult<string>, timing: ProbeTiming): void;
  /**
   * Receives an exception thrown by `transition`/`result` (or by `results`) during a scheduled probe. Without it
   * the exception is rethrown as an uncaught error (a bug must be visible); either way scheduling continues.
   */
  error?(error: unknown): void;
}

/** Default wake-up granularity of the scheduler, in ms. */
const DEFAULT_TICK_MS = 10;

interface Entry<P> extends FairItem<Entry<P>> {
  target: ScheduledTarget<P>;
  state: ThresholdState;
  /** The period its slots are on now (`adaptivePeriodMs`). */
  periodMs: number;
  /** It has been passing at some point (a seed counts): only then is failing "down". */
  everPassed: boolean;
  lastResult?: ProbeResult<string>;
  /** Bumped when the entry is re-armed, so its older slot still in the heap is recognised and dropped. */
  generation: number;
  /** Set by `remove`: its slot and in-flight result are dropped when they come up. */
  removed: boolean;
  /** The slot a waiting probe was due at. */
  queuedAt: number | undefined;
  /** Idle, waiting for a concurrency slot, or running. */
  readonly fair: FairLinks<Entry<P>>;
  /** One per target for its lifetime: aborted only when the target is removed (or the scheduler stops). */
  controller: AbortController;
}

/** An entry's next slot on the grid, as kept in the heap. */
interface Slot<P> extends DueItem {
  entry: Entry<P>;
  generation: number;
}

/** Schedules probes for many targets under a global concurrency cap; see the file comment for timing. */
export class ProbeScheduler<P = unknown> {
  readonly #entries = new Map<string, Entry<P>>();
  readonly #slots = new DueQueue<Slot<P>>();
  readonly #queue: FairQueue<Entry<P>>;
  #timer: TimerHandle | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  readonly #opts: ProbeSchedulerOptions<P>;
  readonly #clock: MonotonicClock;
  readonly #random: () => number;
  readonly #tickMs: number;
  #stopped = false;

  constructor(opts: ProbeSchedulerOptions<P>) {
    if (!Number.isInteger(opts.maxConcurrent) || opts.maxConcurrent < 1)
      throw new RangeError(`maxConcurrent must be an integer >= 1, got ${opts.maxConcurrent}`);
    this.#opts = opts;
    this.#queue = new FairQueue(opts.maxConcurrent);
    this.#clock = opts.clock ?? monotonicClock;
    this.#random = opts.random ?? Math.random;
    this.#tickMs = opts.tickMs ?? DEFAULT_TICK_MS;
    if (!(this.#tickMs > 0)) throw new RangeError(`tickMs must be > 0, got ${opts.tickMs}`);
    if (opts.signal?.aborted) this.stop();
    else opts.signal?.addEventListener("abort", () => this.stop(), { once: true });
  }

  /** Adds a target, or replaces the one with the same id keeping its threshold state and last result. */
  upsert(target: ScheduledTarget<P>): void {
    if (this.#stopped) return;
    for (const key of ["periodMs", "transitionPeriodMs", "downPeriodMs"] as const) {
      const value = target[key];
      if (value !== undefined && !(value > 0))
        throw new RangeError(`target ${target.id}: ${key} must be > 0`);
    }
    const now = this.#clock.now();
    const existing = this.#entries.get(target.id);
    if (existing) {
      const groupChanged = existing.target.group !== target.group;
      existing.target = target;
      const period = adaptivePeriodMs(target, existing.state, existing.everPassed);
      const periodChanged = period !== existing.periodMs;
      existing.periodMs = period;
      if (groupChanged && existing.fair.state === "waiting") {
        // A running probe stays counted in its old group until it ends; a waiting one moves now.
        this.#queue.delete(existing);
        this.#queue.push(existing, target.group ?? "");
      }
      if (periodChanged) this.#arm(existing, now + this.#random() * period);
      return;
    }
    const state = target.seed ? seededThresholdState(target.seed.passing) : initialThresholdState();
    const everPassed = state.passing;
    const entry: Entry<P> = {
      target,
      state,
      periodMs: adaptivePeriodMs(target, state, everPassed),
      everPassed,
      generation: 0,
      removed: false,
      queuedAt: undefined,
      fair: fairLinks(),
      controller: new AbortController(),
    };
    this.#entries.set(target.id, entry);
    if (target.seed) this.#opts.results?.set(target.id, target.seed);
    this.#arm(entry, now + Math.max(0, target.initialDelayMs) + this.#random() * entry.periodMs);
  }

  /**
   * Forgets a target: its timer is cleared, an in-flight probe is aborted and its result ignored, and its state
   * leaves the `results` store.
   */
  remove(id: string): void {
    if (this.#drop(id)) this.#opts.results?.remove(id);
  }

  /**
   * Stops everything: timers cleared, in-flight probes aborted, later `upsert` calls ignored. The `results` store
   * keeps the last published states: a stopping process must not see its targets turn "never probed".
   */
  stop(): void {
    this.#stopped = true;
    for (const id of [...this.#entries.keys()]) this.#drop(id);
    this.#slots.clear();
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  /** Drops a target's entry, slot and in-flight probe; false when it was unknown. */
  #drop(id: string): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#entries.delete(id);
    entry.removed = true;
    this.#queue.delete(entry);
    entry.controller.abort();
    return true;
  }

  /** The current state of a target, or undefined when unknown. */
  state(id: string): TargetState | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    return entry.lastResult ? { ...entry.state, lastResult: entry.lastResult } : { ...entry.state };
  }

  /** The target with this id, as last upserted. */
  target(id: string): ScheduledTarget<P> | undefined {
    return this.#entries.get(id)?.target;
  }

  /** Ids of all targets. */
  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** Probes currently running. */
  get running(): number {
    return this.#queue.running;
  }

  /** Probes whose slot has come and that wait for a concurrency slot. */
  get waiting(): number {
    return this.#queue.waiting;
  }

  /**
   * One step: probes target `id` now (ignoring the concurrency cap), applies the result to its threshold state
   * and reports a transition. Returns the new state, or undefined when the target is unknown, already being
   * probed, or was removed while the probe ran.
   */
  async runOnce(id: string, scheduledAt?: number): Promise<TargetState | undefined> {
    const entry = this.#entries.get(id);
    if (!entry || entry.fair.state === "running") return undefined;
    // This probe stands for a slot the target may be waiting with.
    entry.queuedAt = undefined;
    this.#queue.start(entry, entry.target.group ?? "");
    const applied = await this.#probe(entry, scheduledAt);
    return applied ? this.state(id) : undefined;
  }

  /**
   * Probes `entry`, already marked running in the queue, applies the result and reports it; false when the entry
   * was removed meanwhile. The hot path of the scheduler: no lookups by id and no state copies unless a
   * transition is reported.
   */
  async #probe(entry: Entry<P>, scheduledAt: number | undefined): Promise<boolean> {
    const startedAt = this.#clock.now();
    let result: ProbeResult<string>;
    try {
      result = await this.#opts.run(entry.target, entry.controller.signal);
    } catch (err) {
      // `run` broke its contract; still a failed probe rather than a dead scheduler.
      result = {
        ok: false,
        reason: "Error",
        message: `probe threw: ${(err as Error).message}`,
        durationMs: 0,
      };
    } finally {
      this.#queue.finish(entry);
    }
    if (entry.removed) {
      this.#pump();
      return false;
    }
    const before = entry.state;
    entry.state = nextThresholdState(before, result.ok, entry.target);
    entry.lastResult = result;
    entry.everPassed ||= entry.state.passing;
    this.#adapt(entry, scheduledAt ?? startedAt);
    const { id } = entry.target;
    try {
      this.#opts.results?.record(id, entry.state.passing, result);
      const observer = this.#opts.observer;
      observer?.result?.(id, result, { scheduledAt: scheduledAt ?? startedAt, startedAt });
      if (entry.state.passing !== before.passing)
        observer?.transition?.(id, { ...entry.state, lastResult: result });
    } finally {
      // A throwing callback must not stall the probes queued behind this one.
      this.#pump();
    }
    return true;
  }

  /**
   * Moves `entry` to the period its new state asks for (ADR 0037): the next slot is that period after the slot just
   * probed (now, if that has passed), so a changing target is probed again soon and a down one less often.
   */
  #adapt(entry: Entry<P>, probedSlot: number): void {
    const period = adaptivePeriodMs(entry.target, entry.state, entry.everPassed);
    if (period === entry.periodMs) return;
    entry.periodMs = period;
    this.#arm(entry, Math.max(this.#clock.now(), probedSlot + period));
  }

  /** Puts `entry`'s next slot at `at`, replacing any earlier one, and wakes up in time for it. */
  #arm(entry: Entry<P>, at: number): void {
    entry.generation++;
    this.#slots.push({ at, seq: 0, entry, generation: entry.generation });
    if (at < this.#timerAt) this.#wakeAt(at);
  }

  /** (Re)arms the one timer for the tick boundary nearest to `at`. */
  #wakeAt(at: number): void {
    const boundary = Math.round(at / this.#tickMs) * this.#tickMs;
    if (boundary === this.#timerAt) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = boundary;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, boundary - this.#clock.now()));
  }

  /** Queues every target whose slot has come, moves each to its next slot on the grid, re-arms the timer. */
  #tick(): void {
    const now = this.#clock.now();
    const armedFor = this.#timerAt;
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (now < armedFor - this.#tickMs / 2) {
      // Woken long before the boundary: the clock cut a delay longer than its timers allow (Node's limit is
      // 2^31-1 ms). Nothing is due yet.
      this.#wakeAt(armedFor);
      return;
    }
    // Node may fire a timer a fraction of a millisecond before performance.now() reaches it: the boundary
    // it was armed for is what counts. Slots up to half a tick after it are nearest to it.
    const horizon = Math.max(now, armedFor) + this.#tickMs / 2;
    for (let slot = this.#slots.peek(); slot && slot.at < horizon; slot = this.#slots.peek()) {
      this.#slots.pop();
      const { entry } = slot;
      if (slot.generation !== entry.generation || entry.removed) continue;
      const scheduledAt = slot.at;
      slot.at = scheduledAt + entry.periodMs;
      this.#slots.push(slot);
      if (entry.fair.state !== "idle") continue; // previous probe still running or waiting: skip
      entry.queuedAt = scheduledAt;
      this.#queue.push(entry, entry.target.group ?? "");
    }
    this.#pump();
    const next = this.#slots.peek();
    if (next && !this.#stopped) this.#wakeAt(next.at);
  }

  /** Starts waiting probes while slots are free and their groups are within their share. */
  #pump(): void {
    for (let entry = this.#queue.take(); entry !== undefined; entry = this.#queue.take()) {
      const scheduledAt = entry.queuedAt;
      entry.queuedAt = undefined;
      this.#probe(entry, scheduledAt).catch((error: unknown) => {
        const onError = this.#opts.observer?.error;
        if (onError) onError(error);
        else
          queueMicrotask(() => {
            throw error;
          });
      });
    }
  }
}
