/**
 * The threshold state machine of one (target, probe) pair (SPEC §3.3), pure: a new target starts failing,
 * becomes passing after `successThreshold` consecutive successes, and a passing target becomes failing after
 * `failureThreshold` consecutive failures; in between the state is kept.
 */

/** `passing` plus how many consecutive results disagreed with it (progress toward flipping). */
export interface ThresholdState {
  readonly passing: boolean;
  readonly consecutive: number;
}

/** Consecutive results needed to flip: both at least 1. */
export interface Thresholds {
  readonly successThreshold: number;
  readonly failureThreshold: number;
}

/** The state of a target never probed: failing, no progress. */
export function initialThresholdState(): ThresholdState {
  return { passing: false, consecutive: 0 };
}

/** A state seeded from a known outcome (e.g. the published endpoint state after an agent restart). */
export function seededThresholdState(passing: boolean): ThresholdState {
  return { passing, consecutive: 0 };
}

/**
 * Returns the state after one probe result. `consecutive` counts results contradicting `passing`; a result
 * agreeing with `passing` resets it. Thresholds below 1 are treated as 1.
 */
export function nextThresholdState(
  state: ThresholdState,
  success: boolean,
  thresholds: Thresholds,
): ThresholdState {
  if (success === state.passing)
    return state.consecutive === 0 ? state : { passing: state.passing, consecutive: 0 };
  const needed = Math.max(1, success ? thresholds.successThreshold : thresholds.failureThreshold);
  const consecutive = state.consecutive + 1;
  return consecutive >= needed
    ? { passing: success, consecutive: 0 }
    : { passing: state.passing, consecutive };
}
