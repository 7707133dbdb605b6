/**
 * A token bucket as plain data: `burst` tokens, refilled at `refillPerSecond`. Pure: the caller passes `now`.
 */

/** The bucket's shape: at most `burst` tokens, refilled at `refillPerSecond`. */
export interface TokenBucketPolicy {
  readonly burst: number;
  readonly refillPerSecond: number;
}

/** Tokens left at time `at` (milliseconds, the caller's clock). */
export interface TokenBucketState {
  readonly tokens: number;
  readonly at: number;
}

/** A full bucket at `now`. */
export function fullBucket(policy: TokenBucketPolicy, now: number): TokenBucketState {
  return { tokens: policy.burst, at: now };
}

/** Refills the bucket up to `now` and takes one token if there is one; returns whether it did and the new state. */
export function takeToken(
  state: TokenBucketState,
  policy: TokenBucketPolicy,
  now: number,
): { taken: boolean; state: TokenBucketState } {
  const elapsedS = Math.max(0, now - state.at) / 1000;
  const tokens = Math.min(policy.burst, state.tokens + elapsedS * policy.refillPerSecond);
  if (tokens >= 1) return { taken: true, state: { tokens: tokens - 1, at: now } };
  return { taken: false, state: { tokens, at: now } };
}
