/**
 * Keeps the probe scheduler's targets in step with what the aggregation asks for, and turns probe results into
 * the states the aggregation reads. It tells the caller which SWHs a state change affects, so exactly those are
 * reconciled. No timers or I/O of its own: the scheduler is injected.
 */
import { initialDelayRemainingMs, type ProbeState, type ProbeTarget } from "@swh/aggregation";
import { boundedTimeoutSeconds } from "@swh/crd-types";
import type { ProbeResult, ScheduledTarget } from "@swh/probes";
import { nextProbeState, sameProbeState } from "./probe-state.js";
import { diffTargets, type TargetPlan } from "./probe-targets.js";
import type { TargetUser } from "./seed-probe-states.js";

/** The part of `ProbeScheduler` the tracker drives. */
export interface SchedulerLike {
  upsert(target: ScheduledTarget<ProbeTarget>): void;
  remove(id: string): void;
  state(id: string): { passing: boolean } | undefined;
}

/** Tracks targets and their published states; see the file comment. */
export class ProbeTracker {
  readonly #scheduler: SchedulerLike;
  readonly #now: () => number;
  readonly #running = new Map<string, ProbeTarget>();
  readonly #states = new Map<string, ProbeState>();
  #users = new Map<string, TargetUser[]>();

  constructor(scheduler: SchedulerLike, now: () => number) {
    this.#scheduler = scheduler;
    this.#now = now;
  }

  /** Probe states by target id, as the aggregation reads them (a missing id is failing, not probed yet). */
  get states(): ReadonlyMap<string, ProbeState> {
    return this.#states;
  }

  /** The target with this id, while it is probed. */
  target(id: string): ProbeTarget | undefined {
    return this.#running.get(id);
  }

  /** Number of targets being probed. */
  get size(): number {
    return this.#running.size;
  }

  /**
   * Applies a new target plan: starts new targets (from `seeds` when given: the state published before a
   * restart), stops targets no longer needed and forgets their states.
   */
  sync(plan: TargetPlan, seeds: ReadonlyMap<string, ProbeState> = new Map()): void {
    this.#users = plan.users;
    const { upsert, remove } = diffTargets(this.#running, plan.targets);
    for (const id of remove) {
      this.#scheduler.remove(id);
      this.#running.delete(id);
      this.#states.delete(id);
    }
    for (const target of upsert) {
      const isNew = !this.#running.has(target.id);
      this.#running.set(target.id, target);
      const seed = isNew ? seeds.get(target.id) : undefined;
      if (seed !== undefined) this.#states.set(target.id, seed);
      const scheduled: ScheduledTarget<ProbeTarget> = {
        id: target.id,
        initialDelayMs: initialDelayRemainingMs(target, this.#now()),
        periodMs: target.periodSeconds * 1000,
        successThreshold: target.probe.successThreshold,
        failureThreshold: target.probe.failureThreshold,
        // Namespaces share the probe slots fairly: one tenant's hanging probes cannot delay another's.
        group: target.namespace,
        probe: withBoundedTimeout(target),
      };
      if (seed?.passing) scheduled.seed = { passing: true };
      this.#scheduler.upsert(scheduled);
    }
  }

  /**
   * Records a probe result of target `id` (after the scheduler applied it to the thresholds) and returns the SWHs
   * whose endpoints may change: none when the published state (passing, reason, message) stays the same.
   */
  recordResult(id: string, result: ProbeResult): readonly TargetUser[] {
    const scheduled = this.#scheduler.state(id);
    if (scheduled === undefined || !this.#running.has(id)) return [];
    const previous = this.#states.get(id);
    const next = nextProbeState(previous, scheduled.passing, result);
    if (sameProbeState(previous, next)) return [];
    this.#states.set(id, next);
    return this.#users.get(id) ?? [];
  }
}

/**
 * `target` with its timeout within the schema's bounds: an object stored before them (kept by validation
 * ratcheting) must not hold a probe slot for longer than a new one may.
 */
function withBoundedTimeout(target: ProbeTarget): ProbeTarget {
  const timeoutSeconds = boundedTimeoutSeconds(target.probe.timeoutSeconds, target.periodSeconds);
  return timeoutSeconds === target.probe.timeoutSeconds
    ? target
    : { ...target, probe: { ...target.probe, timeoutSeconds } };
}
