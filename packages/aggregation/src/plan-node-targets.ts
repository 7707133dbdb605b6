/**
 * The probe targets of one node and their schedule: which targets the node's SWHs need, which SWHs each target
 * gates, what changes in the scheduler between two plans, and the timing each target is scheduled with.
 */
import { boundedTimeoutSeconds } from "@swh/crd-types/internal";
import { initialDelayRemainingMs, planProbeTargets } from "./plan-probe-targets.js";
import type { PodInfo, ProbeTarget, SwhInput } from "./types.js";

/** An SWH that uses a probe target: a change of the target's state re-reconciles it. */
export interface TargetUser {
  namespace: string;
  name: string;
}

/** The probe targets of a node and, per target, the SWHs whose endpoints it gates. */
export interface TargetPlan {
  targets: ProbeTarget[];
  users: Map<string, TargetUser[]>;
  /** SWHs whose planning threw (a stored object whose shape no longer fits): skipped, with what they threw. */
  rejected: { swh: SwhInput; error: unknown }[];
}

/**
 * Returns the de-duplicated probe targets of `swhs` over the node's `pods`, plus which SWHs use each target
 * (so a probe transition re-reconciles exactly those SWHs). Each SWH is planned on its own: one that cannot be
 * planned is returned in `rejected` and the others are planned as usual (one bad object never stops the node).
 */
export function planNodeTargets(
  swhs: readonly SwhInput[],
  pods: readonly PodInfo[],
  nodeName: string,
): TargetPlan {
  const targets = new Map<string, ProbeTarget>();
  const users = new Map<string, TargetUser[]>();
  const rejected: TargetPlan["rejected"] = [];
  for (const swh of swhs) {
    let planned: ProbeTarget[];
    try {
      planned = planProbeTargets([swh], pods, { nodeName });
    } catch (error) {
      rejected.push({ swh, error });
      continue;
    }
    for (const target of planned) {
      targets.set(target.id, target);
      const user: TargetUser = { namespace: swh.namespace, name: swh.name };
      const list = users.get(target.id);
      if (list) list.push(user);
      else users.set(target.id, [user]);
    }
  }
  return {
    targets: [...targets.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    users,
    rejected,
  };
}

/** What changes in the scheduler to go from the running targets to the planned ones. */
export interface TargetChanges {
  upsert: ProbeTarget[];
  remove: string[];
}

/**
 * Returns the targets to add or update (new ids, or the same id whose eligibility time changed) and the ids to
 * remove. Ids already encode the address and the whole probe config, so an unchanged id needs no update.
 */
export function diffTargets(
  running: ReadonlyMap<string, ProbeTarget>,
  planned: readonly ProbeTarget[],
): TargetChanges {
  const upsert: ProbeTarget[] = [];
  const keep = new Set<string>();
  for (const target of planned) {
    keep.add(target.id);
    const current = running.get(target.id);
    if (current === undefined || current.eligibleSince !== target.eligibleSince) upsert.push(target);
  }
  const remove = [...running.keys()].filter((id) => !keep.has(id));
  return { upsert, remove };
}

/**
 * How a target is scheduled (structurally a `ScheduledTarget` of @swh/probes): its initial delay counted from the
 * pod's eligibility, its period and thresholds, its namespace as the fair-share group.
 */
export interface TargetSchedule {
  id: string;
  initialDelayMs: number;
  periodMs: number;
  /** Adaptive periods (ADR 0037), when the SWH sets them. */
  transitionPeriodMs?: number;
  downPeriodMs?: number;
  successThreshold: number;
  failureThreshold: number;
  group: string;
  probe: ProbeTarget;
}

/**
 * Returns the schedule of `target` at `now` (ms since the epoch). Its timeout is bounded by the schema's limits: an
 * object stored before them (kept by validation ratcheting) must not hold a probe slot for longer than a new one
 * may. The target itself is not changed (it is shared with the aggregation).
 */
export function targetSchedule(target: ProbeTarget, now: number): TargetSchedule {
  const { transitionPeriodSeconds: transition, downPeriodSeconds: down } = target;
  return {
    id: target.id,
    initialDelayMs: initialDelayRemainingMs(target, now),
    periodMs: target.periodSeconds * 1000,
    ...(transition === undefined ? {} : { transitionPeriodMs: transition * 1000 }),
    ...(down === undefined ? {} : { downPeriodMs: down * 1000 }),
    successThreshold: target.probe.successThreshold,
    failureThreshold: target.probe.failureThreshold,
    // Namespaces share the probe slots fairly: one tenant's hanging probes cannot delay another's.
    group: target.namespace,
    probe: withBoundedTimeout(target),
  };
}

function withBoundedTimeout(target: ProbeTarget): ProbeTarget {
  // Every period the target may be probed at bounds the timeout: a probe ends before the next one is due.
  const shortest = Math.min(
    target.periodSeconds,
    target.transitionPeriodSeconds ?? Number.POSITIVE_INFINITY,
    target.downPeriodSeconds ?? Number.POSITIVE_INFINITY,
  );
  const timeoutSeconds = boundedTimeoutSeconds(target.probe.timeoutSeconds, shortest);
  return timeoutSeconds === target.probe.timeoutSeconds
    ? target
    : { ...target, probe: { ...target.probe, timeoutSeconds } };
}
