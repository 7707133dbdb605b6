/**
 * The clock the scheduler and the probe deadlines run on, injected so tests can drive time; `monotonicClock` is the
 * real one.
 *
 * Why not `@swh/kube`'s `Clock`: that one reads wall time (`Date.now`), because what it times ends up in API
 * objects (Event timestamps). Probe intervals, deadlines and `durationMs` must not jump when the node's wall clock
 * is stepped (NTP, a VM resumed), so they run on `performance.now()`, a different time base; the names differ so
 * that one is never passed where the other is meant. This package also stays free of `@swh/kube` (and of
 * client-node): the `swh-probe` CLI and the probe engine need no API client.
 */

/** An opaque timer handle. */
export type TimerHandle = unknown;

/** Monotonic time source and timers: `now()` in milliseconds since an arbitrary origin, never going back. */
export interface MonotonicClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The longest delay a Node timer honours: 2^31-1 ms (about 24.8 days). Node fires a timer given more after 1 ms,
 * so `monotonicClock` caps delays here: a longer one fires late rather than at once, and its users re-arm.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The process clock: `performance.now()` and Node timers, delays capped at `MAX_TIMER_DELAY_MS`. */
export const monotonicClock: MonotonicClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(ms, MAX_TIMER_DELAY_MS)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
