import { KubeConfig, type KubernetesListObject, type V1Secret } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { KubeApiError, type ListPage, startNamespacedInformers } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

// Lists are faked; the watch that follows a list goes to a port nobody listens on and fails, and a failed watch
// keeps the last list (fail static), so these tests see exactly what their lists return.
function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "http://127.0.0.1:1", skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

const secret = (namespace: string, name: string): V1Secret => ({
  metadata: { namespace, name, uid: `${namespace}-${name}`, resourceVersion: "1" },
});
const listOf = (...items: V1Secret[]): KubernetesListObject<V1Secret> => ({
  metadata: { resourceVersion: "1" },
  items,
});
const refused = () =>
  new KubeApiError(
    403,
    { message: 'secrets is forbidden: User "agent" cannot list' },
    "GET",
    "/api/v1/namespaces/tenant/secrets",
  );

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

function start(
  namespaces: string[],
  list: (namespace: string, page: ListPage) => Promise<KubernetesListObject<V1Secret>>,
) {
  const stop = new AbortController();
  stops.push(stop);
  return startNamespacedInformers<V1Secret>({
    kubeConfig: kubeConfig(),
    namespaces,
    apiPath: "/api/v1",
    resource: "secrets",
    list,
    logger: memoryLogger(),
    backoff: { initialMs: 5, maxMs: 20 },
    signal: stop.signal,
  });
}

describe("startNamespacedInformers", () => {
  it("looks objects up in their namespace's cache, and knows nothing of other namespaces", async () => {
    const caches = start(["shop", "db"], async (namespace) =>
      listOf(...(namespace === "shop" ? [secret("shop", "pg")] : [])),
    );
    await caches.settled();
    expect(caches.hasSettled()).toBe(true);
    expect(caches.lookup("shop", "pg")).toMatchObject({
      state: "cached",
      object: { metadata: { name: "pg" } },
    });
    expect(caches.lookup("shop", "other")).toEqual({ state: "cached", object: undefined });
    expect(caches.lookup("db", "pg")).toEqual({ state: "cached", object: undefined });
    expect(caches.lookup("elsewhere", "pg")).toEqual({ state: "notWatched" });
  });

  it("settles with a namespace the API server refuses, saying why, until a list succeeds", async () => {
    let allowed = false;
    const caches = start(["shop", "tenant"], async (namespace) => {
      if (namespace === "tenant" && !allowed) throw refused();
      return listOf(secret(namespace, "pg"));
    });
    await caches.settled();
    expect(caches.hasSettled()).toBe(true);
    expect(caches.lookup("shop", "pg").state).toBe("cached");
    const lookup = caches.lookup("tenant", "pg");
    expect(lookup).toEqual({ state: "notLoaded", refusal: expect.stringContaining("403") });
    expect(lookup.state === "notLoaded" && lookup.refusal).toContain("cannot list");
    allowed = true;
    await expect.poll(() => caches.lookup("tenant", "pg").state, { timeout: 5_000 }).toBe("cached");
  });

  it("does not settle while a namespace's list fails otherwise (fail static: wait for the API server)", async () => {
    const caches = start(["shop"], async () => {
      throw new KubeApiError(500, { message: "etcd unavailable" }, "GET", "/api/v1/namespaces/shop/secrets");
    });
    const settled = caches.settled().then(() => true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(caches.hasSettled()).toBe(false);
    expect(await Promise.race([settled, Promise.resolve(false)])).toBe(false);
    expect(caches.lookup("shop", "pg")).toEqual({ state: "notLoaded", refusal: undefined });
  });

  it("starts nothing and is settled at once for no namespaces", async () => {
    let lists = 0;
    const caches = start([], async () => {
      lists++;
      return listOf();
    });
    await caches.settled();
    expect(caches.hasSettled()).toBe(true);
    expect(caches.lookup("shop", "pg")).toEqual({ state: "notWatched" });
    expect(lists).toBe(0);
  });
});
