import { CoreV1Api, type V1ConfigMap, Watch } from "@kubernetes/client-node";
import {
  type CountingProxy,
  httpsGet,
  kubeConfigForToken,
  type SeenRequest,
  startCountingProxy,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { Registry } from "prom-client";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKubeMetrics, type Informer, startInformer } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

let cluster: TestCluster;
let core: CoreV1Api;
const stops: AbortController[] = [];
const proxies: CountingProxy[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
});
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

type Seen = { event: string; name: string; data?: string | undefined; oldData?: string | undefined };

function configMapInformer(
  namespace: string,
  opts: {
    labelSelector?: string;
    fieldSelector?: string;
    via?: CountingProxy;
    watchTimeoutSeconds?: number;
  } = {},
) {
  const stop = new AbortController();
  stops.push(stop);
  const registry = new Registry();
  const metrics = createKubeMetrics(registry);
  const logger = memoryLogger();
  const kubeConfig = opts.via ? kubeConfigForToken(opts.via, cluster.info.adminToken) : cluster.kubeConfig;
  // Lists by its watch path (the default list, as the apps run it).
  const informer: Informer<V1ConfigMap> = startInformer<V1ConfigMap>({
    kubeConfig,
    name: "configmaps",
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
    ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
    ...(opts.watchTimeoutSeconds ? { watchTimeoutSeconds: () => opts.watchTimeoutSeconds ?? 0 } : {}),
    logger,
    metrics,
    backoff: { initialMs: 200, maxMs: 2_000 },
    signal: stop.signal,
  });
  const seen: Seen[] = [];
  informer.on("add", (o) => seen.push({ event: "add", name: o.metadata?.name ?? "", data: o.data?.v }));
  informer.on("update", (o, old) =>
    seen.push({ event: "update", name: o.metadata?.name ?? "", data: o.data?.v, oldData: old?.data?.v }),
  );
  informer.on("delete", (o) => seen.push({ event: "delete", name: o.metadata?.name ?? "", data: o.data?.v }));
  const restarts = async () => (await metrics.watchRestarts.get()).values.reduce((n, v) => n + v.value, 0);
  return { informer, seen, restarts, logger };
}

/** A proxy in front of the API server that records the requests of the informers pointed at it. */
async function proxy(): Promise<CountingProxy> {
  const p = await startCountingProxy({ server: cluster.info.server, caPem: cluster.info.caPem });
  proxies.push(p);
  return p;
}

const isWatch = (r: SeenRequest) => new URL(r.path, "https://x").searchParams.get("watch") === "true";
const params = (r: SeenRequest) => Object.fromEntries(new URL(r.path, "https://x").searchParams);
/** The informer's lists and watches of `namespace`'s ConfigMaps seen by `p`. */
function traffic(p: CountingProxy, namespace: string) {
  const mine = p.requests.filter((r) => r.path.startsWith(`/api/v1/namespaces/${namespace}/configmaps`));
  return { lists: mine.filter((r) => !isWatch(r)), watches: mine.filter(isWatch) };
}

/** The API server's count of lists it served from its watch cache, for ConfigMaps (`apiserver_cache_list_total`). */
async function configMapListsFromCache(): Promise<number> {
  const port = Number(new URL(cluster.info.server).port);
  const { body } = await httpsGet(port, "/metrics", { token: cluster.info.adminToken });
  const names = new Set(
    body
      .split("\n")
      .filter((l) => /^apiserver_cache_list/.test(l))
      .map((l) => l.split("{")[0]),
  );
  console.log(`API server cache list metrics: ${[...names].join(", ")}`);
  return (
    body
      .split("\n")
      // The label is `resource` since 1.32 (`resource_prefix` before).
      .filter(
        (l) =>
          l.startsWith("apiserver_cache_list_total{") &&
          (l.includes('resource="configmaps"') || l.includes('resource_prefix="/configmaps"')),
      )
      .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)
  );
}

/** Whether the API server streams a watch's initial list (`sendInitialEvents=true`, the WatchList feature). */
async function streamsInitialEvents(namespace: string): Promise<string> {
  const stop = new AbortController();
  stops.push(stop);
  return new Promise((resolve) => {
    void new Watch(cluster.kubeConfig)
      .watch(
        `/api/v1/namespaces/${namespace}/configmaps`,
        { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true },
        (type, obj: { metadata?: { annotations?: Record<string, string> } }) => {
          if (type === "BOOKMARK" && obj.metadata?.annotations?.["k8s.io/initial-events-end"] === "true") {
            resolve("streamed (initial-events-end bookmark)");
          } else if (type === "ERROR") resolve(`refused: ${JSON.stringify(obj)}`);
        },
        (err) => resolve(`ended: ${String(err)}`),
      )
      .then((req) => stop.signal.addEventListener("abort", () => req.abort()))
      .catch((err: unknown) => resolve(`refused: ${String(err)}`));
  });
}

const cm = (name: string, v: string, labels?: Record<string, string>): V1ConfigMap => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  data: { v },
});

describe("startInformer against a real API server", () => {
  it("lists existing objects, then sees add, update (with the old object) and delete", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("before", "1") });
    const { informer, seen } = configMapInformer(namespace);
    await informer.synced();
    expect(informer.hasSynced()).toBe(true);
    expect(informer.get("before", namespace)?.data?.v).toBe("1");

    await core.createNamespacedConfigMap({ namespace, body: cm("a", "1") });
    await core.patchNamespacedConfigMap({
      namespace,
      name: "a",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await core.deleteNamespacedConfigMap({ namespace, name: "a" });
    await waitFor("delete of a seen", () => seen.some((s) => s.event === "delete" && s.name === "a"));

    expect(seen.filter((s) => s.name === "a")).toEqual([
      { event: "add", name: "a", data: "1" },
      { event: "update", name: "a", data: "2", oldData: "1" },
      { event: "delete", name: "a", data: "2" },
    ]);
    expect(informer.get("a", namespace)).toBeUndefined();
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(["before"]);
  });

  it("caches listed and watched objects in one shape: the typed models, timestamps as Dates", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("listed", "1") });
    const { informer } = configMapInformer(namespace);
    await informer.synced();
    await core.createNamespacedConfigMap({ namespace, body: cm("watched", "1") });
    await waitFor("watched seen", () => informer.get("watched", namespace));
    for (const name of ["listed", "watched"])
      expect(informer.get(name, namespace)?.metadata?.creationTimestamp, name).toBeInstanceOf(Date);
  });

  it("applies the field selector to the list and the watch", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("one", "1") });
    await core.createNamespacedConfigMap({ namespace, body: cm("two", "1") });
    const { informer, seen } = configMapInformer(namespace, { fieldSelector: "metadata.name=two" });
    await informer.synced();
    await core.patchNamespacedConfigMap({
      namespace,
      name: "one",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await core.patchNamespacedConfigMap({
      namespace,
      name: "two",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await waitFor("two updated", () => informer.get("two", namespace)?.data?.v === "2");
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(["two"]);
    expect(seen.map((s) => s.name)).toEqual(["two", "two"]);
  });

  it("hands out frozen objects: a handler cannot change the cache", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("x", "1") });
    const { informer } = configMapInformer(namespace);
    await informer.synced();
    const obj = informer.get("x", namespace) as V1ConfigMap;
    expect(() => {
      (obj.data as Record<string, string>).v = "changed";
    }).toThrow(TypeError);
    expect(informer.get("x", namespace)?.data?.v).toBe("1");
  });

  it("applies the label selector to the list and the watch", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("mine-1", "1", { team: "swh" }) });
    await core.createNamespacedConfigMap({ namespace, body: cm("other-1", "1", { team: "other" }) });
    const { informer, seen } = configMapInformer(namespace, { labelSelector: "team=swh" });
    await informer.synced();
    await core.createNamespacedConfigMap({ namespace, body: cm("other-2", "1", { team: "other" }) });
    await core.createNamespacedConfigMap({ namespace, body: cm("mine-2", "1", { team: "swh" }) });
    await waitFor("mine-2 seen", () => informer.get("mine-2", namespace));
    expect(seen.map((s) => s.name).sort()).toEqual(["mine-1", "mine-2"]);
  });

  it("survives an API server restart and sees changes made after it", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("kept", "1") });
    await core.createNamespacedConfigMap({ namespace, body: cm("doomed", "1") });
    const { informer, seen, restarts, logger } = configMapInformer(namespace);
    await informer.synced();

    // The informer must see the outage (a failed list/watch, counted and logged) before the server is back;
    // otherwise whether it notices depends on how fast it retries against how fast the server restarts.
    await cluster.restartApiServer({
      whileDown: () => waitFor("the informer to notice the outage", async () => (await restarts()) > 0),
    });

    // Everything below happens only after the restart: the informer must have re-established its watch.
    await waitFor("API server answers again", () =>
      core.listNamespacedConfigMap({ namespace }).then(() => true),
    );
    await core.patchNamespacedConfigMap({
      namespace,
      name: "kept",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await core.createNamespacedConfigMap({ namespace, body: cm("after", "1") });
    await core.deleteNamespacedConfigMap({ namespace, name: "doomed" });

    await waitFor(
      "changes after the restart seen",
      () =>
        informer.get("kept", namespace)?.data?.v === "2" &&
        informer.get("after", namespace) !== undefined &&
        informer.get("doomed", namespace) === undefined,
      { timeoutMs: 60_000 },
    );
    expect(seen).toEqual(
      expect.arrayContaining([
        { event: "update", name: "kept", data: "2", oldData: "1" },
        { event: "add", name: "after", data: "1" },
        { event: "delete", name: "doomed", data: "1" },
      ]),
    );
    expect(await restarts()).toBeGreaterThan(0);
    expect(logger.lines.some((l) => l.msg === "informer list/watch failed; restarting")).toBe(true);
  });

  it("resumes a watch the server ends from the last resourceVersion, without listing again", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("a", "1") });
    const p = await proxy();
    // The server ends each watch after 2 s (client-go asks for 5–10 min): several watch cycles in a short test.
    const { informer, restarts } = configMapInformer(namespace, { via: p, watchTimeoutSeconds: 2 });
    await informer.synced();
    await waitFor("three watches", () => traffic(p, namespace).watches.length >= 3, { timeoutMs: 30_000 });
    await core.createNamespacedConfigMap({ namespace, body: cm("b", "1") });
    await waitFor("b seen", () => informer.get("b", namespace));
    await waitFor("another watch", () => traffic(p, namespace).watches.length >= 4, { timeoutMs: 30_000 });

    const { lists, watches } = traffic(p, namespace);
    // One list, served from the watch cache and paginated; every watch resumes where the last one ended.
    expect(lists.map(params)).toEqual([
      { limit: "500", resourceVersion: "0", resourceVersionMatch: "NotOlderThan" },
    ]);
    for (const watch of watches) {
      expect(params(watch)).toMatchObject({ allowWatchBookmarks: "true", timeoutSeconds: "2" });
      expect(params(watch).resourceVersion).not.toBe("0");
    }
    const versions = watches.map((w) => Number(params(w).resourceVersion));
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(await restarts()).toBe(0);
  });

  it("re-lists after 410 Gone and emits exactly what it missed", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("kept", "1") });
    await core.createNamespacedConfigMap({ namespace, body: cm("same", "1") });
    await core.createNamespacedConfigMap({ namespace, body: cm("doomed", "1") });
    const p = await proxy();
    const { informer, seen, restarts } = configMapInformer(namespace, { via: p, watchTimeoutSeconds: 2 });
    await informer.synced();
    seen.splice(0);

    // The next watch waits in the proxy: the informer misses the changes below.
    p.hold((r) => isWatch(r) && r.path.includes(`/namespaces/${namespace}/`));
    await waitFor("the informer's next watch to wait", () => p.held() > 0, { timeoutMs: 30_000 });
    await core.patchNamespacedConfigMap({
      namespace,
      name: "kept",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await core.createNamespacedConfigMap({ namespace, body: cm("after", "1") });
    await core.deleteNamespacedConfigMap({ namespace, name: "doomed" });
    // A restarted API server's watch cache starts after these changes: the held watch's version is gone (410).
    await cluster.restartApiServer();
    p.release();

    await waitFor(
      "the missed changes",
      () =>
        informer.get("kept", namespace)?.data?.v === "2" &&
        informer.get("after", namespace) !== undefined &&
        informer.get("doomed", namespace) === undefined,
      { timeoutMs: 60_000 },
    );
    expect(seen).toEqual(
      expect.arrayContaining([
        { event: "update", name: "kept", data: "2", oldData: "1" },
        { event: "add", name: "after", data: "1" },
        { event: "delete", name: "doomed", data: "1" },
      ]),
    );
    expect(seen.filter((s) => s.name === "same")).toEqual([]);
    const { lists } = traffic(p, namespace);
    // The first list, then one consistent list (no resourceVersion: the old one is gone) after the 410.
    expect(lists.map(params)).toEqual([
      { limit: "500", resourceVersion: "0", resourceVersionMatch: "NotOlderThan" },
      { limit: "500" },
    ]);
    expect(await restarts()).toBe(0);
  });

  it("serves its first list from the API server's watch cache, not etcd", async () => {
    const namespace = await cluster.createNamespace("inf");
    await core.createNamespacedConfigMap({ namespace, body: cm("a", "1") });
    const before = await configMapListsFromCache();
    const { informer } = configMapInformer(namespace);
    await informer.synced();
    const after = await configMapListsFromCache();
    console.log(
      `apiserver_cache_list_total for configmaps: ${before} before the informer, ${after} after it synced`,
    );
    expect(after - before).toBe(1);
    // Measured for ADR 0025: whether this API server would also stream the initial list inside the watch.
    console.log(`sendInitialEvents=true: ${await streamsInitialEvents(namespace)}`);
  });
});
