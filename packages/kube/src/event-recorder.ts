/**
 * Records Kubernetes Events (events.k8s.io/v1) about our objects without ever hurting the caller:
 * - aggregation: a repeat of the same (object, type, reason, message) within `aggregationWindowMs` does not
 *   create a new Event; it raises `series.count` on the existing one (one PATCH, no new object);
 * - rate limiting: a token bucket per involved object (burst 10, then one per 10 s by default); a repeat that
 *   is rate-limited still counts and its count travels with the next PATCH;
 * - `record` is synchronous and never throws: write failures are logged and counted in `swh_events_total`.
 * Writes for one Event are serialised so a PATCH never races its CREATE.
 */
import { randomBytes } from "node:crypto";
import type { EventsV1Event, KubeConfig, V1ObjectReference } from "@kubernetes/client-node";
import { type Clock, systemClock } from "./clock.js";
import { describeApiError, microTime } from "./internal/api-errors.js";
import { createJsonClient } from "./json-client.js";
import type { Logger } from "./logger.js";
import type { KubeMetrics } from "./metrics.js";
import { fullBucket, type TokenBucketPolicy, type TokenBucketState, takeToken } from "./token-bucket.js";

/** The object an Event is about. Cluster-scoped objects (Nodes) have no namespace; their Events go to "default". */
export interface EventSubject {
  kind: string;
  apiVersion: string;
  name: string;
  namespace?: string | undefined;
  uid: string;
}

/** The `type` of a Kubernetes Event. */
export type EventType = "Normal" | "Warning";

/** Where Events are written: the API server in production, a small fake in unit tests. */
export interface EventSink {
  /** Creates the Event and returns its name. */
  create(namespace: string, event: EventsV1Event): Promise<string>;
  /** Sets `series` on an existing Event. */
  updateSeries(
    namespace: string,
    name: string,
    series: { count: number; lastObservedTime: string },
  ): Promise<void>;
}

/** Options of `EventRecorder`: who reports, where Events go, and the aggregation and rate limits. */
export interface EventRecorderOptions {
  /** `reportingController`, e.g. "network.deckhouse.io/swh-controller". */
  component: string;
  /** `reportingInstance`, e.g. the pod name; defaults to `component`. */
  instance?: string;
  logger: Logger;
  /** Writes to the API server with this config unless `sink` is given. */
  kubeConfig?: KubeConfig;
  sink?: EventSink;
  metrics?: KubeMetrics;
  clock?: Clock;
  rateLimit?: TokenBucketPolicy;
  aggregationWindowMs?: number;
  /** Upper bound of remembered Events and buckets (oldest forgotten first). */
  maxTracked?: number;
}

interface Tracked {
  namespace: string;
  name: string | undefined;
  count: number;
  reported: number;
  lastSeen: number;
  event: EventsV1Event;
  chain: Promise<void>;
}

const DEFAULT_RATE: TokenBucketPolicy = { burst: 10, refillPerSecond: 0.1 };
const DEFAULT_WINDOW_MS = 10 * 60_000;

/** Records aggregated, rate-limited Events (see the file header). */
export class EventRecorder {
  readonly #sink: EventSink;
  readonly #opts: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #rate: TokenBucketPolicy;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #tracked = new Map<string, Tracked>();
  readonly #buckets = new Map<string, TokenBucketState>();
  readonly #pending = new Set<Promise<void>>();

  constructor(opts: EventRecorderOptions) {
    if (opts.sink === undefined && opts.kubeConfig === undefined)
      throw new Error("kubeConfig: required without sink");
    this.#opts = opts;
    this.#sink = opts.sink ?? kubeEventSink(opts.kubeConfig as KubeConfig);
    this.#clock = opts.clock ?? systemClock;
    this.#rate = opts.rateLimit ?? DEFAULT_RATE;
    this.#windowMs = opts.aggregationWindowMs ?? DEFAULT_WINDOW_MS;
    this.#max = opts.maxTracked ?? 4096;
  }

  /** Records an Event about `subject`; returns at once, never throws (see the file header). */
  record(subject: EventSubject, type: EventType, reason: string, message: string): void {
    try {
      this.#record(subject, type, reason, message);
    } catch (err) {
      this.#opts.metrics?.events.inc({ result: "failed" });
      this.#opts.logger.error("recording an event failed", { reason, err });
    }
  }

  /** Resolves when every write started so far has finished (for shutdown and tests). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #record(subject: EventSubject, type: EventType, reason: string, message: string): void {
    const now = this.#clock.now();
    const key = `${subject.uid}\u0000${type}\u0000${reason}\u0000${message}`;
    const existing = this.#tracked.get(key);
    const allowed = this.#takeToken(subject.uid, now);
    if (existing !== undefined && now - existing.lastSeen < this.#windowMs) {
      existing.count++;
      existing.lastSeen = now;
      touch(this.#tracked, key, existing);
      if (allowed) this.#enqueue(key, existing);
      else this.#dropped(reason);
      return;
    }
    if (!allowed) {
      this.#dropped(reason);
      return;
    }
    const namespace = subject.namespace || "default";
    const tracked: Tracked = {
      namespace,
      name: undefined,
      count: 1,
      reported: 0,
      lastSeen: now,
      chain: Promise.resolve(),
      event: {
        // Named like client-go's events (object name + time in hex; random bits against same-millisecond clashes).
        metadata: { name: eventName(subject.name, now), namespace },
        eventTime: microTime(new Date(now)) as unknown as Date,
        reportingController: this.#opts.component,
        reportingInstance: this.#opts.instance ?? this.#opts.component,
        // API limits: action and reason 128 characters, note 1 KiB.
        action: reason.slice(0, 128),
        reason: reason.slice(0, 128),
        note: truncateUtf8(message, 1024),
        type,
        regarding: regardingOf(subject),
      },
    };
    touch(this.#tracked, key, tracked);
    trim(this.#tracked, this.#max);
    this.#enqueue(key, tracked);
  }

  #enqueue(key: string, t: Tracked): void {
    // #write handles its own errors; the catch only guards against a bug turning into an unhandled rejection.
    const write = t.chain
      .then(() => this.#write(key, t))
      .catch((err: unknown) => this.#opts.logger.error("event write crashed", { err }));
    t.chain = write;
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write));
  }

  // Brings the API in line with `t`: create when not yet created, else PATCH the count if it grew.
  async #write(key: string, t: Tracked): Promise<void> {
    const { metrics, logger } = this.#opts;
    try {
      if (t.name === undefined) {
        const count = t.count;
        const event: EventsV1Event =
          count > 1
            ? { ...t.event, series: { count, lastObservedTime: this.#time(t.lastSeen) as unknown as Date } }
            : t.event;
        t.name = await this.#sink.create(t.namespace, event);
        t.reported = count;
        metrics?.events.inc({ result: "created" });
        return;
      }
      if (t.count <= t.reported) return;
      const count = t.count;
      await this.#sink.updateSeries(t.namespace, t.name, { count, lastObservedTime: this.#time(t.lastSeen) });
      t.reported = count;
      metrics?.events.inc({ result: "patched" });
    } catch (err) {
      metrics?.events.inc({ result: "failed" });
      logger.warn("writing an event failed", { reason: t.event.reason, err: describeApiError(err) });
      // Forget it: the next occurrence starts a fresh Event (e.g. after this one expired: 404).
      if (this.#tracked.get(key) === t) this.#tracked.delete(key);
    }
  }

  #time(ms: number): string {
    return microTime(new Date(ms));
  }

  #takeToken(uid: string, now: number): boolean {
    const state = this.#buckets.get(uid) ?? fullBucket(this.#rate, now);
    const { taken, state: next } = takeToken(state, this.#rate, now);
    touch(this.#buckets, uid, next);
    trim(this.#buckets, this.#max);
    return taken;
  }

  #dropped(reason: string): void {
    this.#opts.metrics?.events.inc({ result: "dropped" });
    this.#opts.logger.debug("event rate-limited", { reason });
  }
}

/** An EventSink writing events.k8s.io/v1 Events with `kubeConfig` (through the JSON client). */
function kubeEventSink(kubeConfig: KubeConfig): EventSink {
  const api = createJsonClient(kubeConfig);
  const events = (namespace: string) =>
    `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  return {
    async create(namespace, body) {
      const created = await api.request<EventsV1Event>({ method: "POST", path: events(namespace), body });
      return created.metadata?.name ?? "";
    },
    async updateSeries(namespace, name, series) {
      // A JSON Patch "add" replaces the member when present.
      await api.request({
        method: "PATCH",
        path: `${events(namespace)}/${encodeURIComponent(name)}`,
        body: [{ op: "add", path: "/series", value: series }],
        contentType: "application/json-patch+json",
      });
    },
  };
}

function regardingOf(s: EventSubject): V1ObjectReference {
  return {
    kind: s.kind,
    apiVersion: s.apiVersion,
    name: s.name,
    uid: s.uid,
    ...(s.namespace ? { namespace: s.namespace } : {}),
  };
}

// Moves `key` to the end of the map's insertion order (most recently used).
function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
}

function trim<V>(map: Map<string, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}

function eventName(objectName: string, now: number): string {
  const suffix = `${Math.floor(now).toString(16)}${randomBytes(4).toString("hex")}`;
  return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = text.slice(0, maxBytes);
  while (Buffer.byteLength(out) > maxBytes) out = out.slice(0, -1);
  return out;
}
