/**
 * The time source and timer the I/O components use. Tests pass a fake to drive time explicitly
 * instead of sleeping.
 */

/** An opaque handle returned by `Clock.setTimeout`. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * Wall-clock time in milliseconds (`Date.now` for the real clock) plus one-shot timers. Wall time because some of
 * what it times is written to the API (Event `eventTime` and series times); `@swh/probes` has a `MonotonicClock`
 * for probe deadlines, a different time base on purpose.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The longest delay a Node timer honours: 2^31-1 ms (about 24.8 days). Node fires a timer given more after 1 ms,
 * so `systemClock` caps delays here: a computed delay that is too long (a requeue, a backoff) fires late, never
 * at once in a loop.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The process clock: `Date.now` and Node timers (unref'd, so a pending timer never keeps a process alive), delays
 * capped at `MAX_TIMER_DELAY_MS`.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, Math.min(ms, MAX_TIMER_DELAY_MS));
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Resolves after `ms` on `clock`, or at once when `signal` aborts (never rejects), so loops can back off and
 * still stop promptly.
 */
export function sleepUnlessAborted(
  ms: number,
  signal: AbortSignal,
  clock: Clock = systemClock,
): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clock.clearTimeout(handle);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
