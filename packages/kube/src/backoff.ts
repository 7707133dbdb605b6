/**
 * Capped exponential backoff, shared by the work queue, the informer restarts and `withRetry`.
 * Pure: the caller supplies the attempt number and, when it wants jitter, a random source.
 */

/** Bounds of an exponential backoff: the first delay and the cap. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

/**
 * Returns the delay before retry number `attempt` (1 = first retry): `initialMs * 2^(attempt-1)`, never more
 * than `maxMs`. With `jitter` (0..1) and `random`, the delay is spread over `[d * (1 - jitter), d]` so that many
 * clients that failed together do not retry together.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  jitter?: { fraction: number; random: () => number },
): number {
  const n = Math.max(1, Math.floor(attempt));
  // 2^n overflows to Infinity long after the cap is reached; Math.min keeps the result finite.
  const raw = Math.min(policy.maxMs, policy.initialMs * 2 ** (n - 1));
  if (jitter === undefined || jitter.fraction <= 0) return raw;
  const fraction = Math.min(1, jitter.fraction);
  return raw * (1 - fraction * jitter.random());
}
