/**
 * The clock the scheduler and the probe deadlines run on, injected so tests can drive time; `systemClock` is the
 * real one.
 */

/** An opaque timer handle. */
export type TimerHandle = unknown;

/** Time source and timers: `now()` in milliseconds (monotonic for the real clock). */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The longest delay a Node timer honours: 2^31-1 ms (about 24.8 days). Node fires a timer given more after 1 ms,
 * so `systemClock` caps delays here: a longer one fires late rather than at once, and its users re-arm.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The process clock: `performance.now()` and Node timers, delays capped at `MAX_TIMER_DELAY_MS`. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(ms, MAX_TIMER_DELAY_MS)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
