/**
 * A small cache whose entries expire after a time to live and whose size is bounded: when full, the oldest entry
 * goes first. Time comes from a `Clock`, so tests move it instead of sleeping. Used for authorization decisions,
 * where a stale answer must not outlive its TTL and a flood of distinct keys must not grow memory.
 */
import { type Clock, systemClock } from "./clock.js";

/** Bounded map from keys to values that expire `ttlMs` after they were set. */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #clock: Clock;

  /** `maxEntries` ≥ 1 bounds the size; `clock` defaults to the process clock. */
  constructor(opts: { maxEntries: number; clock?: Clock }) {
    if (!Number.isInteger(opts.maxEntries) || opts.maxEntries < 1) {
      throw new RangeError(`TtlCache: maxEntries must be a positive integer, got ${opts.maxEntries}`);
    }
    this.#maxEntries = opts.maxEntries;
    this.#clock = opts.clock ?? systemClock;
  }

  /** The value of `key` while it has not expired, else undefined (and the expired entry is dropped). */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#clock.now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; evicts the oldest entries beyond the bound. A TTL ≤ 0 stores nothing. */
  set(key: K, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (ttlMs <= 0) return;
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }

  /** Entries held, expired ones included until they are next read. */
  get size(): number {
    return this.#entries.size;
  }
}
