/**
 * Retries Kubernetes API calls that failed for reasons that may pass: throttling (429), server errors (5xx) and
 * network errors (no HTTP status at all). Client errors such as 403 Forbidden, 404, 409 Conflict or 422 Invalid
 * are returned at once: retrying cannot fix them and the caller must decide.
 */
import { type BackoffPolicy, backoffDelay } from "./backoff.js";
import { sleepUnlessAborted } from "./clock.js";
import { httpStatusOf } from "./internal/api-errors.js";
import type { Logger } from "./logger.js";

/** Options of `withRetry`: how often, how long between attempts, and which errors are worth another try. */
export interface RetryOptions {
  /** Total attempts including the first; default 5. */
  attempts?: number;
  /** Default 200 ms doubling to 5 s, with 20 % jitter. */
  backoff?: BackoffPolicy;
  signal?: AbortSignal;
  logger?: Logger;
  /** Names the call in logs. */
  description?: string;
  /** Overrides which errors are retried. */
  retryable?: (err: unknown) => boolean;
}

/** Returns true for errors worth retrying: HTTP 429 and 5xx, and network errors (a socket error code, timeouts). */
export function isRetryableApiError(err: unknown): boolean {
  const status = httpStatusOf(err);
  if (status !== undefined) return status === 429 || status >= 500;
  return isNetworkError(err);
}

// undici reports network failures as `TypeError("fetch failed")` with the socket error (ECONNREFUSED, ...) as
// `cause`; anything else without an HTTP status is a bug and is not retried.
function isNetworkError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; code?: unknown; cause?: unknown };
  if (e.name === "TimeoutError") return true;
  if (typeof e.code === "string") return true;
  return e.cause !== undefined && isNetworkError(e.cause);
}

/** Calls `fn` until it succeeds, fails with a non-retryable error, runs out of attempts or `signal` aborts. */
export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 5;
  const backoff = opts.backoff ?? { initialMs: 200, maxMs: 5_000 };
  const retryable = opts.retryable ?? isRetryableApiError;
  const signal = opts.signal ?? new AbortController().signal;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || signal.aborted || !retryable(err)) throw err;
      const delayMs = Math.round(backoffDelay(attempt, backoff, { fraction: 0.2, random: Math.random }));
      opts.logger?.debug("API call failed; retrying", {
        call: opts.description,
        attempt,
        delayMs,
        status: httpStatusOf(err),
      });
      await sleepUnlessAborted(delayMs, signal);
      if (signal.aborted) throw err;
    }
  }
}
