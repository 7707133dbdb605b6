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

/** The process clock: `performance.now()` and Node timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
