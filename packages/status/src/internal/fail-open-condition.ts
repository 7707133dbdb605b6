/**
 * The `ChecksEnforced` condition (ADR 0039): present only while `spec.healthcheck.failOpen` is set, computed from
 * the same verdict the controller publishes to the agents (`failOpenVerdict`), so status and slices cannot tell
 * different stories. True `ChecksDecide`: every port's endpoints follow their checks. False `FailingOpen`: some
 * port's failing endpoints are published as if passing; the message names the ports and their counts. Its change
 * is recorded as an Event like every condition change (Warning when it becomes False).
 */
import { failOpenVerdict } from "@swh/aggregation";
import { CONDITION_REASONS, CONDITION_TYPES, type FailOpenSpec } from "@swh/crd-types";
import type { ConditionInput } from "@swh/crd-types/internal";
import type { SliceView } from "@swh/slice-writer";

/** The condition for `failOpen` over the SWH's slices; undefined when fail-open is not asked for. */
export function checksEnforcedCondition(
  failOpen: Readonly<FailOpenSpec> | undefined,
  slices: readonly SliceView[],
): ConditionInput | undefined {
  if (failOpen === undefined) return undefined;
  const ports = failOpenVerdict(failOpen, slices);
  const rule =
    failOpen.healthyBelowPercent === undefined
      ? "no endpoint passes"
      : `fewer than ${failOpen.healthyBelowPercent}% of the endpoints pass`;
  if (ports.length === 0) {
    return {
      type: CONDITION_TYPES.checksEnforced,
      status: "True",
      reason: CONDITION_REASONS.checksEnforced.checksDecide,
      message: `every port's endpoints follow their checks (fail-open while ${rule})`,
    };
  }
  const listed = ports
    .map((p) => `${p.portName || "(unnamed)"} (${p.passing}/${p.passing + p.failing} passing)`)
    .join(", ");
  return {
    type: CONDITION_TYPES.checksEnforced,
    status: "False",
    reason: CONDITION_REASONS.checksEnforced.failingOpen,
    message: `failing open on port(s) ${listed}: ${rule}, so their failing endpoints are published as if passing until checks recover`,
  };
}
