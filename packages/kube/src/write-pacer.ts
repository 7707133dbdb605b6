/**
 * Paces writes per key with a token bucket (default burst 5, then 2 a second). An isolated change is written at
 * once; when changes keep coming, each key is written at most at the refill rate and every write carries all
 * changes since the last one. The agent paces its slice writes per SWH with it: without it, 600 targets turning
 * ready over 10 s cost ~390 slice writes and ~1.5 MB of garbage each. Pure: the caller passes `now`.
 */
import { fullBucket, type TokenBucketPolicy, type TokenBucketState, takeToken } from "./token-bucket.js";

/** Default pacing of writes per key. */
const DEFAULT_WRITE_PACE: TokenBucketPolicy = { burst: 5, refillPerSecond: 2 };

/** Per-key write pacing (see the file header). */
export class WritePacer {
  readonly #policy: TokenBucketPolicy;
  readonly #buckets = new Map<string, TokenBucketState>();

  constructor(policy: TokenBucketPolicy = DEFAULT_WRITE_PACE) {
    this.#policy = policy;
  }

  /** How long a change of `key` noticed at `now` waits at least before its write: 0 while tokens are left. */
  delayMs(key: string, now: number): number {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return 0;
    const elapsedS = Math.max(0, now - bucket.at) / 1000;
    const tokens = Math.min(this.#policy.burst, bucket.tokens + elapsedS * this.#policy.refillPerSecond);
    if (tokens >= 1) return 0;
    return Math.ceil(((1 - tokens) / this.#policy.refillPerSecond) * 1000);
  }

  /** Records a write of `key` at `now`; a write made with no token left (not paced, e.g. a pod change) empties it. */
  recordWrite(key: string, now: number): void {
    const bucket = this.#buckets.get(key) ?? fullBucket(this.#policy, now);
    this.#buckets.set(key, takeToken(bucket, this.#policy, now).state);
    // Forget buckets that have refilled, so the map holds only keys written recently.
    for (const [other, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.#policy.refillPerSecond >= this.#policy.burst)
        this.#buckets.delete(other);
    }
  }
}
