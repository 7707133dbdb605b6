/**
 * Adaptive probe periods (ADR 0037), pure: HAProxy probes at `fastinter` while a server changes state and at
 * `downinter` once it is down; Envoy has its unhealthy and edge intervals. A target here is probed every
 * - `transitionPeriodMs` while its result is changing — some consecutive results disagree with its state, so the
 *   next ones decide whether it flips (reaction time ≈ threshold × the transition period);
 * - `downPeriodMs` while it is down: failing, with no disagreeing result, after it passed at least once (a target
 *   that never passed is coming up, and keeps the normal period so that a starting pod is let in on time);
 * - `periodMs` otherwise. An unset adaptive period is `periodMs`.
 */
import type { ThresholdState } from "./threshold.js";

/** The periods a target may have; the adaptive ones are optional. */
export interface AdaptivePeriods {
  periodMs: number;
  transitionPeriodMs?: number | undefined;
  downPeriodMs?: number | undefined;
}

/** The period for a target in `state` (see the file comment); `everPassed`: it has been passing at some point. */
export function adaptivePeriodMs(
  periods: AdaptivePeriods,
  state: ThresholdState,
  everPassed: boolean,
): number {
  if (state.consecutive > 0) return periods.transitionPeriodMs ?? periods.periodMs;
  if (!state.passing && everPassed) return periods.downPeriodMs ?? periods.periodMs;
  return periods.periodMs;
}
