/**
 * Standard condition bookkeeping: a condition's `lastTransitionTime` moves only when its `status` changes, so
 * recomputing status from the same facts yields the same object (and no write).
 */
import type { ConditionReason } from "./reasons.js";
import { formatTime, type Timestamp } from "./time.js";
import type { Condition } from "./types.js";

/**
 * A condition before bookkeeping: what is true now, without a transition time. Its reason is one of
 * `CONDITION_REASONS`, each documented in docs/troubleshooting.md.
 */
export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration" | "reason"> & {
  reason: ConditionReason;
};

/** A condition whose status differs from the previous one of the same type (or that is new). */
export interface ConditionChange {
  type: string;
  from: Condition["status"] | undefined;
  to: Condition["status"];
  reason: string;
  message: string;
}

/**
 * Returns `next` as full conditions: each keeps the previous `lastTransitionTime` of its type when the status
 * is unchanged, else gets `now`; all get `observedGeneration`. Order follows `next`.
 */
export function withTransitionTimes(
  previous: readonly Readonly<Condition>[] | undefined,
  next: readonly ConditionInput[],
  now: Timestamp,
  observedGeneration: number | undefined,
): Condition[] {
  return next.map((condition) => {
    const before = previous?.find((p) => p.type === condition.type);
    const lastTransitionTime =
      before !== undefined && before.status === condition.status && before.lastTransitionTime
        ? before.lastTransitionTime
        : formatTime(now);
    const out: Condition = { ...condition, lastTransitionTime };
    if (observedGeneration !== undefined) out.observedGeneration = observedGeneration;
    return out;
  });
}

/**
 * The conditions of `next` whose status differs from the one in `previous`, for Events. A condition that was not
 * there before (a new SWH, or a new condition type) is not a change: its first value is visible in the status, and
 * Events record transitions — otherwise every new SWH would cost one Event write per condition type.
 */
export function conditionChanges(
  previous: readonly Readonly<Condition>[] | undefined,
  next: readonly Readonly<Condition>[],
): ConditionChange[] {
  const changes: ConditionChange[] = [];
  for (const condition of next) {
    const before = previous?.find((p) => p.type === condition.type);
    if (before === undefined || before.status === condition.status) continue;
    changes.push({
      type: condition.type,
      from: before?.status,
      to: condition.status,
      reason: condition.reason,
      message: condition.message,
    });
  }
  return changes;
}
