/**
 * A shared-informer: an in-memory cache of one resource kept current by list + watch, with add/update/delete
 * notifications, following client-go's reflector (ADR 0025). It lists once, then only watches: a watch the server
 * closes (its `timeoutSeconds`, 5–10 min) is resumed from the last resourceVersion seen — an event's or a
 * bookmark's (`allowWatchBookmarks=true`) — without a list. It re-lists only when a watch fails or the
 * resourceVersion expired (`410 Gone`), and then emits the differences. Lists ask for `resourceVersion=0` (served
 * from the API server's watch cache, not etcd) on the first list and the last seen resourceVersion after a
 * failure (never older than what the cache holds), a consistent read after `410`, and are paginated (`limit`,
 * `continue`) for when the server does not serve them from its cache. Every failure (list error, watch error,
 * API server down) re-lists after a capped, jittered exponential backoff, is counted in
 * `swh_watch_restarts_total{informer}` and logged. A resync (`resyncMs`) replays the cache as `update(obj, obj)`
 * without any request.
 *
 * Why an own loop over client-node's `Watch` rather than wrapping `ListWatch`: restarting `ListWatch` from its
 * error callback races with its internal reconnect logic and it cannot resync, pass the old object to update
 * handlers or report a restart. The loop below is one `while`: list, then watch until the watch fails, decide.
 */
import type { KubeConfig, KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { Watch } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";
import { type BackoffPolicy, backoffDelay } from "./backoff.js";
import { sleepUnlessAborted } from "./clock.js";
import { httpStatusOf } from "./internal/api-errors.js";
import { decodeWatchObject } from "./internal/decode-object.js";
import { deepFreeze } from "./internal/deep-freeze.js";
import { type ListPage, listByPath } from "./internal/list-by-path.js";
import type { Logger } from "./logger.js";
import type { KubeMetrics } from "./metrics.js";

export type { ListPage };

/** Informer notifications. `update` carries the previous object; a periodic resync delivers `update(obj, obj)`. */
export type InformerEvent = "add" | "update" | "delete";
/** Receives one notification: the object, and for `update` the previous one. Both are read-only cache objects. */
export type InformerHandler<T> = (obj: Readonly<T>, old?: Readonly<T>) => void;

/** A read-only cache of one resource plus change notifications. Cached objects are frozen: copy before changing. */
export interface Informer<T> {
  list(): readonly Readonly<T>[];
  get(name: string, namespace?: string): Readonly<T> | undefined;
  on(event: InformerEvent, fn: InformerHandler<T>): void;
  /** True once the first list has been loaded into the cache. */
  hasSynced(): boolean;
  /** Resolves when the first list is in the cache; rejects if the informer stops before that. */
  synced(): Promise<void>;
  stop(): void;
}

/** Options of `startInformer`: what it lists and watches, and where it logs and counts restarts. */
export interface InformerOptions<T extends KubernetesObject> {
  kubeConfig: KubeConfig;
  /** Names the informer in logs and metrics, e.g. "pods". */
  name: string;
  /** Watch path, e.g. `/api/v1/pods` or `/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices`. */
  path: string;
  /**
   * Lists the collection; default a GET of `path` with `labelSelector` and `fieldSelector` (`listByPath`: one
   * source of truth for what is cached). Given, it must list the same collection with the same selectors, passing
   * `page` on to the API (client-node's list calls take these names as they are).
   */
  list?: (page: ListPage) => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  fieldSelector?: string;
  logger: Logger;
  metrics?: KubeMetrics;
  /** Period of the cache replay (`update(obj, obj)` for every object, no request); default 10 minutes. */
  resyncMs?: number;
  /** `timeoutSeconds` of each watch request; default a random 300–600 s, as client-go. */
  watchTimeoutSeconds?: () => number;
  /** Restart backoff; default 500 ms doubling to 30 s, with 20 % jitter. */
  backoff?: BackoffPolicy;
  signal: AbortSignal;
}

/** Objects per list page, as client-go's reflector. */
const LIST_PAGE_SIZE = 500;
const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };
const DEFAULT_RESYNC_MS = 10 * 60_000;
// client-go's reflector: each watch asks the server to end it after a random 5–10 min, which spreads the
// re-watches of many clients over time after an API server restart.
const MIN_WATCH_TIMEOUT_S = 300;
// Longer than two bookmark periods of the API server (about 1 min each).
const WATCH_INACTIVITY_TIMEOUT_MS = 150_000;
// A watch that ends cleanly sooner than this without delivering anything is treated as a failure, so a server
// that keeps closing watches at once cannot make us spin.
const MIN_HEALTHY_WATCH_MS = 1_000;

type WatchEnd =
  | { kind: "closed"; events: number; ms: number }
  | { kind: "expired" }
  | { kind: "stopped" }
  | { kind: "error"; error: unknown };

/** Resolves when every one of `informers` has loaded its first list; rejects when one stops before that. */
export async function allSynced(informers: Iterable<Pick<Informer<unknown>, "synced">>): Promise<void> {
  await Promise.all([...informers].map((i) => i.synced()));
}

/** True when every one of `informers` has loaded its first list (an app's readiness). */
export function allHaveSynced(informers: Iterable<Pick<Informer<unknown>, "hasSynced">>): boolean {
  return [...informers].every((i) => i.hasSynced());
}

/** Starts an informer for one resource; it runs until `signal` aborts or `stop()` is called. */
export function startInformer<T extends KubernetesObject>(opts: InformerOptions<T>): Informer<T> {
  const stopper = new AbortController();
  const signal = AbortSignal.any([opts.signal, stopper.signal]);
  const log = opts.logger.child({ informer: opts.name });
  const cache = new Map<string, Readonly<T>>();
  const handlers: Record<InformerEvent, InformerHandler<T>[]> = { add: [], update: [], delete: [] };
  const resyncMs = opts.resyncMs ?? DEFAULT_RESYNC_MS;
  const watchTimeoutSeconds =
    opts.watchTimeoutSeconds ?? (() => MIN_WATCH_TIMEOUT_S + Math.floor(Math.random() * MIN_WATCH_TIMEOUT_S));
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const list = opts.list ?? listByPath<T>(opts, signal);
  const watch = new Watch(opts.kubeConfig);
  // client-node aborts a watch after 30 s without a byte, so a quiet watch was re-opened every 30 s (measured:
  // 4 of an agent's 5 watches within a 35 s window). The API server sends a bookmark about once a minute, so a
  // live watch is never silent for long; the inactivity limit only has to catch a dead connection. The field is
  // private in client-node's types, plain in its code (2.0.1).
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = WATCH_INACTIVITY_TIMEOUT_MS;
  let hasSynced = false;
  let resolveSynced!: () => void;
  let rejectSynced!: (e: Error) => void;
  const syncedPromise = new Promise<void>((res, rej) => {
    resolveSynced = res;
    rejectSynced = rej;
  });
  syncedPromise.catch(() => {}); // nobody may be waiting; the rejection is still delivered to those who are

  const emit = (event: InformerEvent, obj: Readonly<T>, old?: Readonly<T>) => {
    for (const fn of handlers[event]) {
      try {
        fn(obj, old);
      } catch (err) {
        log.error("informer handler threw", { event, object: objectKey(obj.metadata ?? {}), err });
      }
    }
  };

  // Replaces the cache with a fresh list and emits the differences.
  const replaceAll = (items: readonly T[]) => {
    const seen = new Set<string>();
    for (const item of items) {
      const obj = deepFreeze(item);
      const key = objectKey(obj.metadata ?? {});
      seen.add(key);
      const old = cache.get(key);
      cache.set(key, obj);
      if (old === undefined) emit("add", obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) emit("update", obj, old);
    }
    for (const [key, old] of cache) {
      if (!seen.has(key)) {
        cache.delete(key);
        emit("delete", old);
      }
    }
  };

  // Every page of one list; the collection's resourceVersion is the last page's (pages share one snapshot).
  const listAll = async (resourceVersion: string | undefined): Promise<{ items: T[]; rv: string }> => {
    const items: T[] = [];
    let page: ListPage = {
      limit: LIST_PAGE_SIZE,
      // NotOlderThan: without it, a resourceVersion with a limit means "exactly that version" (etcd, or 410).
      ...(resourceVersion !== undefined ? { resourceVersion, resourceVersionMatch: "NotOlderThan" } : {}),
    };
    for (;;) {
      const listed = await list(page);
      items.push(...listed.items);
      const next = listed.metadata?._continue;
      if (!next || signal.aborted) return { items, rv: listed.metadata?.resourceVersion ?? "" };
      page = { limit: LIST_PAGE_SIZE, _continue: next };
    }
  };

  const applyEvent = (type: string, obj: Readonly<T>) => {
    const key = objectKey(obj.metadata ?? {});
    const old = cache.get(key);
    if (type === "DELETED") {
      cache.delete(key);
      emit("delete", old ?? obj);
    } else if (old === undefined) {
      cache.set(key, obj);
      emit("add", obj);
    } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      cache.set(key, obj);
      emit("update", obj, old);
    }
  };

  const watchUntilEnd = (resourceVersion: string): Promise<{ end: WatchEnd; rv: string }> =>
    new Promise((resolve) => {
      let rv = resourceVersion;
      let events = 0;
      let finished = false;
      let request: AbortController | undefined;
      const startedAt = Date.now();
      const finish = (end: WatchEnd) => {
        if (finished) return;
        finished = true;
        signal.removeEventListener("abort", onAbort);
        request?.abort();
        resolve({ end, rv });
      };
      const onAbort = () => finish({ kind: "stopped" });
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) return onAbort();
      const params: Record<string, string> = {
        resourceVersion: rv,
        allowWatchBookmarks: "true",
        timeoutSeconds: String(watchTimeoutSeconds()),
      };
      if (opts.labelSelector !== undefined) params.labelSelector = opts.labelSelector;
      if (opts.fieldSelector !== undefined) params.fieldSelector = opts.fieldSelector;
      const onEvent = (type: string, raw: Record<string, unknown> & KubernetesObject) => {
        if (finished) return;
        if (type === "ERROR") {
          const status = raw as { code?: number; message?: string };
          if (status.code === 410) return finish({ kind: "expired" });
          return finish({
            kind: "error",
            error: new Error(`watch error event: ${status.code} ${status.message}`),
          });
        }
        events++;
        rv = raw.metadata?.resourceVersion ?? rv;
        if (type === "BOOKMARK") return;
        applyEvent(type, deepFreeze(decodeWatchObject<T>(raw)));
      };
      const onDone = (err: unknown) => {
        if (err === null || err === undefined || isTimeout(err)) {
          finish({ kind: "closed", events, ms: Date.now() - startedAt });
        } else if (httpStatusOf(err) === 410) {
          finish({ kind: "expired" });
        } else {
          finish({ kind: "error", error: err });
        }
      };
      watch.watch(opts.path, params, onEvent, onDone).then(
        (req) => {
          request = req;
          if (finished) req.abort();
        },
        (error: unknown) => finish({ kind: "error", error }),
      );
    });

  const loop = async () => {
    let failures = 0;
    // What the next list asks for: "0" (the watch cache, first list), the last resourceVersion seen (after a
    // failure: never older than the cache), undefined (a consistent read, after 410: that version is gone).
    let listFrom: string | undefined = "0";
    while (!signal.aborted) {
      try {
        const list = await listAll(listFrom);
        if (signal.aborted) break;
        replaceAll(list.items);
        if (!hasSynced) {
          hasSynced = true;
          resolveSynced();
          log.info("informer synced", { objects: cache.size });
        }
        let rv = list.rv;
        for (;;) {
          const startedAt = Date.now();
          const { end, rv: lastRv } = await watchUntilEnd(rv);
          rv = lastRv;
          listFrom = rv;
          if (end.kind === "stopped") return settle();
          if (end.kind === "error") {
            // A watch that ran for a while was healthy: its failure starts a new backoff sequence.
            if (Date.now() - startedAt >= MIN_HEALTHY_WATCH_MS) failures = 0;
            throw end.error;
          }
          if (end.kind === "expired") {
            log.debug("resourceVersion expired; re-listing");
            listFrom = undefined;
            break;
          }
          if (end.events === 0 && end.ms < MIN_HEALTHY_WATCH_MS) throw new Error("watch closed immediately");
          failures = 0;
        }
      } catch (err) {
        if (signal.aborted) break;
        if (httpStatusOf(err) === 410) listFrom = undefined;
        failures++;
        const delayMs = Math.round(backoffDelay(failures, backoff, { fraction: 0.2, random: Math.random }));
        opts.metrics?.watchRestarts.inc({ informer: opts.name });
        log.warn("informer list/watch failed; restarting", { failures, delayMs, err: summarize(err) });
        await sleepUnlessAborted(delayMs, signal);
      }
    }
    settle();
  };
  const settle = () => {
    if (!hasSynced) rejectSynced(new Error(`informer ${opts.name} stopped before it synced`));
  };
  // Replays the cache (client-go's resync): handlers see every object again, the API server sees nothing.
  const replay = async () => {
    while (!signal.aborted) {
      await sleepUnlessAborted(resyncMs, signal);
      if (signal.aborted) return;
      for (const obj of [...cache.values()]) emit("update", obj, obj);
    }
  };
  void loop();
  void replay();

  return {
    list: () => [...cache.values()],
    get: (name, namespace) => cache.get(objectKey({ namespace, name })),
    on: (event, fn) => {
      handlers[event].push(fn);
    },
    hasSynced: () => hasSynced,
    synced: () => syncedPromise,
    stop: () => stopper.abort(),
  };
}

function isTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "TimeoutError";
}

// Keeps restart logs short: API errors from client-node carry the whole response body and headers.
function summarize(err: unknown): { message: string; status?: number; code?: string } {
  const message = err instanceof Error ? err.message.slice(0, 500) : String(err);
  const status = httpStatusOf(err);
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  return { message, ...(status !== undefined ? { status } : {}), ...(code !== undefined ? { code } : {}) };
}
