import { diffTargets, type ProbeState, type ProbeTarget, targetSchedule } from "@swh/aggregation";
import type { ProbeScheduler, ScheduledTarget } from "@swh/probes";

/**
 * Makes the scheduler probe exactly `planned`: starts new targets (from `seeds` when given: the state published
 * before a restart), updates targets whose pod became eligible again, stops the others (their published state
 * goes with them). Unchanged targets are not touched, so their timing and thresholds carry on.
 */
export function syncTargets(
  scheduler: ProbeScheduler<ProbeTarget>,
  planned: readonly ProbeTarget[],
  now: number,
  seeds: ReadonlyMap<string, ProbeState> = new Map(),
): void {
  const running = new Map<string, ProbeTarget>();
  for (const id of scheduler.ids()) {
    const target = scheduler.target(id)?.probe;
    if (target) running.set(id, target);
  }
  const { upsert, remove } = diffTargets(running, planned);
  for (const id of remove) scheduler.remove(id);
  for (const target of upsert) {
    const scheduled: ScheduledTarget<ProbeTarget> = targetSchedule(target, now);
    const seed = seeds.get(target.id);
    if (seed !== undefined) scheduled.seed = seed;
    scheduler.upsert(scheduled);
  }
}
