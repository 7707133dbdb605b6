/**
 * A rate-limited work queue in the manner of client-go's workqueue: event handlers only add keys, workers
 * reconcile a key from current state. The queue guarantees the properties a level-based controller relies on:
 * - a key waiting in the queue is held once, however often it is added;
 * - a key is never handed to two workers at once; a key added while it runs is run again after it finishes;
 * - a failed key is retried after a capped exponential backoff per key (5 ms doubling to 60 s), which resets
 *   when the key succeeds.
 * Time comes from an injected `Clock`, so tests drive delays without sleeping.
 */
import { type BackoffPolicy, backoffDelay } from "./backoff.js";
import { type Clock, systemClock, type TimerHandle } from "./clock.js";
import type { Logger } from "./logger.js";
import type { KubeMetrics } from "./metrics.js";

/** The default per-key retry backoff. */
export const DEFAULT_QUEUE_BACKOFF: BackoffPolicy = { initialMs: 5, maxMs: 60_000 };

/** What a worker may return: nothing (done) or a request to run the key again later. */
// biome-ignore lint/suspicious/noConfusingVoidType: lets a worker be a plain `async (key) => { ... }`.
export type WorkResult = void | { requeueAfterMs: number };

/** Processes one key; a rejection means "failed, retry with backoff". */
export type Worker<K extends string> = (key: K) => Promise<WorkResult>;

/** Construction options of `WorkQueue`; the clock and backoff are injectable so tests drive retries. */
export interface WorkQueueOptions {
  /** Names the queue in metrics and logs. */
  name?: string;
  clock?: Clock;
  backoff?: BackoffPolicy;
  metrics?: KubeMetrics;
  logger?: Logger;
}

/** Options of `WorkQueue.run`. */
export interface RunOptions {
  /** How many keys are processed at the same time (different keys only). */
  concurrency: number;
  /** Stops taking new keys when aborted; `run` resolves once the running workers finish. */
  signal: AbortSignal;
}

/** A de-duplicating, per-key serialised work queue with per-key retry backoff (see the file header). */
export class WorkQueue<K extends string> {
  readonly name: string;
  readonly #clock: Clock;
  readonly #backoff: BackoffPolicy;
  readonly #metrics: KubeMetrics | undefined;
  readonly #logger: Logger | undefined;
  // Keys ready to run, in order; each key at most once.
  readonly #ready: K[] = [];
  // Keys that must run (again): in #ready, or running and added again meanwhile.
  readonly #dirty = new Set<K>();
  readonly #running = new Set<K>();
  readonly #delayed = new Map<K, { at: number; handle: TimerHandle }>();
  readonly #failures = new Map<K, number>();
  #waiters: Array<() => void> = [];

  constructor(opts: WorkQueueOptions = {}) {
    this.name = opts.name ?? "default";
    this.#clock = opts.clock ?? systemClock;
    this.#backoff = opts.backoff ?? DEFAULT_QUEUE_BACKOFF;
    this.#metrics = opts.metrics;
    this.#logger = opts.logger;
  }

  /** Queues `key` unless it is already waiting; a running key is queued to run again after it finishes. */
  add(key: K): void {
    if (this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#running.has(key)) return;
    this.#ready.push(key);
    this.#changed();
  }

  /** Queues `key` after `ms`; of several pending delays for one key the earliest wins. */
  addAfter(key: K, ms: number): void {
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      this.#clock.clearTimeout(pending.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    this.#delayed.set(key, { at, handle });
  }

  /** Number of keys waiting to run now (not running, not delayed). */
  get length(): number {
    return this.#ready.length;
  }

  /** Number of keys waiting for a delay to pass. */
  get delayedCount(): number {
    return this.#delayed.size;
  }

  /** How many times in a row `key` has failed (0 after a success). */
  failures(key: K): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Runs `worker` over queued keys with up to `concurrency` keys at once until `signal` aborts. */
  async run(worker: Worker<K>, opts: RunOptions): Promise<void> {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
      throw new Error(`concurrency: must be a positive integer, got ${opts.concurrency}`);
    }
    const { signal } = opts;
    const wakeAll = () => {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const w of waiters) w();
    };
    signal.addEventListener("abort", wakeAll, { once: true });
    try {
      const loops = Array.from({ length: opts.concurrency }, async () => {
        for (;;) {
          const key = await this.#next(signal);
          if (key === undefined) return;
          await this.#process(key, worker);
        }
      });
      await Promise.all(loops);
    } finally {
      signal.removeEventListener("abort", wakeAll);
    }
  }

  /** Stops pending delays (call when the queue is discarded). */
  clearDelayed(): void {
    for (const { handle } of this.#delayed.values()) this.#clock.clearTimeout(handle);
    this.#delayed.clear();
  }

  async #next(signal: AbortSignal): Promise<K | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      const key = this.#ready.shift();
      if (key !== undefined) {
        this.#dirty.delete(key);
        this.#running.add(key);
        this.#changed();
        return key;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async #process(key: K, worker: Worker<K>): Promise<void> {
    try {
      const result = await worker(key);
      this.#failures.delete(key);
      if (result && typeof result === "object") this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      const delayMs = backoffDelay(failures, this.#backoff);
      this.#metrics?.queueRetries.inc({ queue: this.name });
      // The field is `item`, not `key`: the logger redacts fields named like keys.
      this.#logger?.warn("work item failed; retrying with backoff", { item: key, failures, delayMs, err });
      this.addAfter(key, delayMs);
    } finally {
      this.#running.delete(key);
      if (this.#dirty.has(key)) {
        this.#ready.push(key);
        this.#changed();
      }
    }
  }

  #changed(): void {
    this.#metrics?.queueDepth.set({ queue: this.name }, this.#ready.length);
    // Wake as many idle workers as there are ready keys; a woken worker that finds nothing waits again.
    const wake = this.#waiters.splice(0, this.#ready.length);
    for (const w of wake) w();
  }
}
