import type { ProbeState } from "@swh/aggregation";

/** Longest probe message kept in states (and so in the slice annotation and status). */
export const MAX_MESSAGE_LENGTH = 200;

/**
 * Returns the state the aggregation sees for a target after a probe result. A passing target carries no
 * reason. A failing target carries the reason of the latest failed probe; while it recovers (successes below
 * `successThreshold`) it keeps the reason it failed for, so the published reason does not churn.
 */
export function nextProbeState(
  previous: ProbeState | undefined,
  passing: boolean,
  result: { ok: boolean; reason?: string; message: string },
): ProbeState {
  if (passing) return { passing: true };
  if (!result.ok) {
    return { passing: false, reason: result.reason ?? "Error", message: truncate(result.message) };
  }
  if (previous && !previous.passing) return previous;
  return { passing: false };
}

/** True when two states publish the same thing. */
export function sameProbeState(a: ProbeState | undefined, b: ProbeState | undefined): boolean {
  return a?.passing === b?.passing && a?.reason === b?.reason && a?.message === b?.message;
}

function truncate(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;
}
