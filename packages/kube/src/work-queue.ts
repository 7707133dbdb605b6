/**
 * A rate-limited work queue in the manner of client-go's workqueue: event handlers only add keys, workers
 * reconcile a key from current state. The queue guarantees the properties a level-based controller relies on:
 * - a key waiting in the queue is held once, however often it is added;
 * - a key is never handed to two workers at once; a key added while it runs is run again after it finishes;
 * - a failed key is retried after a capped exponential backoff per key (5 ms doubling to 60 s), which resets
 *   when the key succeeds;
 * - a key is dropped (not retried until it is added again) when its worker throws a `TerminalError`, or after
 *   `maxRetries` retries in a row failed; the last error is reported (`onDropped`, `swh_workqueue_dropped_total`);
 * - each run gets a signal that aborts after `timeoutMs` or when the queue stops, and a logger whose lines carry
 *   the run's `reconcileID` (ADR 0022).
 * Time comes from an injected `Clock`, so tests drive delays and timeouts without sleeping.
 */
import { randomBytes } from "node:crypto";
import { type BackoffPolicy, backoffDelay } from "./backoff.js";
import { type Clock, systemClock, type TimerHandle } from "./clock.js";
import { createLogger, type Logger } from "./logger.js";
import type { KubeMetrics } from "./metrics.js";
import { isTerminalError } from "./terminal-error.js";

/** The default per-key retry backoff. */
const DEFAULT_QUEUE_BACKOFF: BackoffPolicy = { initialMs: 5, maxMs: 60_000 };

/**
 * Retries after which a key that keeps failing is dropped until its next event. As in client-go's endpoint
 * controllers (`maxRetries = 15`): with the default backoff that is about 2.4 minutes of retrying (ADR 0022).
 */
export const DEFAULT_MAX_RETRIES = 15;

/** How long one run of a worker may take before its signal aborts and the run counts as failed. */
const DEFAULT_WORK_TIMEOUT_MS = 30_000;

/** What a worker may return: nothing (done) or a request to run the key again later. */
// biome-ignore lint/suspicious/noConfusingVoidType: lets a worker be a plain `async (key) => { ... }`.
export type WorkResult = void | { requeueAfterMs: number };

/** What the queue gives each run of a worker. */
export interface WorkContext {
  /** Aborts when the run exceeds the queue's `timeoutMs` or when `run`'s signal aborts; pass it to API calls. */
  signal: AbortSignal;
  /** The queue's logger with `queue`, `item` (the key) and `reconcileID` on every line; log through it. */
  logger: Logger;
  /** Short random id of this run, the `reconcileID` of its log lines. */
  reconcileID: string;
  /** How many runs of this key failed in a row before this one. */
  failures: number;
}

/**
 * Processes one key. A rejection means "failed, retry with backoff"; a `TerminalError` means "retrying cannot
 * help": the key is dropped until it is added again.
 */
export type Worker<K extends string> = (key: K, ctx: WorkContext) => Promise<WorkResult>;

/** Why a key was dropped without a retry. */
export type DropKind = "terminal" | "retry_limit";

/** What `onDropped` is told: the key, why, how many runs failed in a row, the last error and the run's logger. */
export interface DroppedKey<K extends string> {
  key: K;
  kind: DropKind;
  failures: number;
  error: unknown;
  /** The logger of the run that failed last (its lines carry that run's `reconcileID`). */
  logger: Logger;
}

/** Construction options of `WorkQueue`; the clock and backoff are injectable so tests drive retries. */
export interface WorkQueueOptions<K extends string = string> {
  /** Names the queue in metrics and logs. */
  name?: string;
  clock?: Clock;
  backoff?: BackoffPolicy;
  metrics?: KubeMetrics;
  logger?: Logger;
  /** Retries in a row after which a failing key is dropped until its next event; default `DEFAULT_MAX_RETRIES`. */
  maxRetries?: number;
  /** Deadline of one run in ms (its signal aborts, the run counts as failed); default `DEFAULT_WORK_TIMEOUT_MS`. */
  timeoutMs?: number;
  /**
   * Called when a key is dropped (terminal error or retry limit) with the last error, e.g. to show it in the
   * object's status. A throw is logged, never propagated.
   */
  onDropped?(dropped: DroppedKey<K>): void | Promise<void>;
}

/** The error a run that exceeded its deadline is counted with (its signal's abort reason). */
export class WorkTimeoutError extends Error {
  override readonly name = "WorkTimeoutError";
}

// A queue without a logger still hands workers one; its lines go nowhere.
const discard = createLogger({ stream: { write: () => true } as unknown as NodeJS.WritableStream });

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
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #onDropped: WorkQueueOptions<K>["onDropped"];
  // Keys ready to run, in order; each key at most once.
  readonly #ready: K[] = [];
  // Keys that must run (again): in #ready, or running and added again meanwhile.
  readonly #dirty = new Set<K>();
  readonly #running = new Set<K>();
  readonly #delayed = new Map<K, { at: number; handle: TimerHandle }>();
  readonly #failures = new Map<K, number>();
  #waiters: Array<() => void> = [];

  constructor(opts: WorkQueueOptions<K> = {}) {
    this.name = opts.name ?? "default";
    this.#clock = opts.clock ?? systemClock;
    this.#backoff = opts.backoff ?? DEFAULT_QUEUE_BACKOFF;
    this.#metrics = opts.metrics;
    this.#logger = opts.logger;
    this.#maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_WORK_TIMEOUT_MS;
    this.#onDropped = opts.onDropped;
    if (!Number.isInteger(this.#maxRetries) || this.#maxRetries < 0) {
      throw new Error(`maxRetries: must be a non-negative integer, got ${opts.maxRetries}`);
    }
    if (!(this.#timeoutMs > 0)) throw new Error(`timeoutMs: must be positive, got ${opts.timeoutMs}`);
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
          await this.#process(key, worker, signal);
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

  async #process(key: K, worker: Worker<K>, stop: AbortSignal): Promise<void> {
    const reconcileID = randomBytes(4).toString("hex");
    // The field is `item`, not `key`: the logger redacts fields named like keys.
    const logger = (this.#logger ?? discard).child({ queue: this.name, item: key, reconcileID });
    const failures = this.#failures.get(key) ?? 0;
    // The deadline runs on the queue's clock, so tests drive it; the worker sees one signal for both reasons.
    const deadline = new AbortController();
    const timer = this.#clock.setTimeout(
      () => deadline.abort(new WorkTimeoutError(`run of ${key} exceeded ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    );
    const signal = AbortSignal.any([stop, deadline.signal]);
    try {
      const result = await worker(key, { signal, logger, reconcileID, failures });
      this.#failures.delete(key);
      if (result && typeof result === "object") this.addAfter(key, result.requeueAfterMs);
    } catch (thrown) {
      // A worker that gave up because of the deadline usually throws an AbortError: count the timeout instead.
      const err = deadline.signal.aborted ? deadline.signal.reason : thrown;
      await this.#failed(key, failures + 1, err, logger);
    } finally {
      this.#clock.clearTimeout(timer);
      this.#running.delete(key);
      if (this.#dirty.has(key)) {
        this.#ready.push(key);
        this.#changed();
      }
    }
  }

  // Retries `key` with backoff, or drops it (terminal error, retry limit) and reports the last error. The report
  // runs while the key still counts as running, so it never overlaps a new run of the same key.
  async #failed(key: K, failures: number, err: unknown, logger: Logger): Promise<void> {
    const kind: DropKind | undefined = isTerminalError(err)
      ? "terminal"
      : failures > this.#maxRetries
        ? "retry_limit"
        : undefined;
    if (kind === undefined) {
      this.#failures.set(key, failures);
      const delayMs = backoffDelay(failures, this.#backoff);
      this.#metrics?.queueRetries.inc({ queue: this.name });
      logger.warn("work item failed; retrying with backoff", { failures, delayMs, err });
      this.addAfter(key, delayMs);
      return;
    }
    // Forgotten: the next event starts from a fresh backoff.
    this.#failures.delete(key);
    this.#metrics?.queueDropped.inc({ queue: this.name, kind });
    // A terminal error is about the object, which its worker reports where users look (status, Event,
    // de-duplicated warnings); at debug here, so an object re-added on every event does not repeat it at warn.
    if (kind === "terminal") {
      logger.debug("work item cannot succeed by retrying; dropped until it is added again", { err });
    } else {
      logger.warn("work item failed too often; dropped until it is added again", { failures, err });
    }
    try {
      await this.#onDropped?.({ key, kind, failures, error: err, logger });
    } catch (e) {
      logger.error("reporting a dropped work item failed", { err: e });
    }
  }

  #changed(): void {
    this.#metrics?.queueDepth.set({ queue: this.name }, this.#ready.length);
    // Wake as many idle workers as there are ready keys; a woken worker that finds nothing waits again.
    const wake = this.#waiters.splice(0, this.#ready.length);
    for (const w of wake) w();
  }
}
