/**
 * The Events that writing an SWH status records (SPEC §2.3): one per condition whose status changed (Normal when
 * it became True, else Warning; the `ChildServiceReady` alias of `ServiceReady` gets none, one is enough), plus a
 * Warning for a status naming an invalid spec or a failed reconcile each time it is written — so even a new SWH,
 * whose first conditions are no change, gets one. Pure: the caller records them.
 */
import {
  CONDITION_REASONS,
  CONDITION_TYPES,
  type Condition,
  type ConditionReason,
  EVENT_REASONS,
  type EventReason,
} from "@swh/crd-types";
import { conditionChanges } from "@swh/crd-types/internal";
import type { ControllerStatus } from "./compute-status.js";

/** One Event about an SWH. */
export interface StatusEvent {
  type: "Normal" | "Warning";
  reason: EventReason | ConditionReason;
  message: string;
}

/** The Events for writing `status` over a stored status whose conditions were `previous`. */
export function statusEvents(
  previous: readonly Readonly<Condition>[] | undefined,
  status: Readonly<ControllerStatus>,
): StatusEvent[] {
  const events: StatusEvent[] = [];
  const changes = conditionChanges(previous, status.conditions ?? []);
  const invalid = status.conditions?.find(
    (c) => c.type === CONDITION_TYPES.ready && c.reason === CONDITION_REASONS.ready.invalidSpec,
  );
  if (invalid !== undefined && !changes.some((c) => c.type === CONDITION_TYPES.ready)) {
    events.push({ type: "Warning", reason: EVENT_REASONS.invalidSpec, message: invalid.message });
  }
  const failed = status.conditions?.find((c) => c.type === CONDITION_TYPES.reconciled);
  if (failed !== undefined)
    events.push({ type: "Warning", reason: EVENT_REASONS.reconcileFailed, message: failed.message });
  for (const change of changes) {
    if (change.type === CONDITION_TYPES.childServiceReady) continue;
    events.push({
      type: change.to === "True" ? "Normal" : "Warning",
      // The conditions were just computed from CONDITION_REASONS (stored ones are ours too).
      reason: change.reason as ConditionReason,
      message: `${change.type} is ${change.to}: ${change.message}`,
    });
  }
  return events;
}
