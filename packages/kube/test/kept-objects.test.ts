import type { V1ConfigMap } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { KeptObjects } from "../src/index.js";

const labelled = (resourceVersion = "1"): V1ConfigMap => ({
  metadata: { namespace: "ns", name: "web", resourceVersion, labels: { watched: "yes" } },
});
const unlabelled = (): V1ConfigMap => ({ metadata: { namespace: "ns", name: "web", resourceVersion: "2" } });

/** Kept objects over a fake watch cache and API server, counting requests and change notices. */
function world(opts: { cached?: V1ConfigMap[]; keep?: boolean; stored?: V1ConfigMap | Error | undefined }) {
  let cached = opts.cached ?? [];
  const fetches: string[] = [];
  let changes = 0;
  const kept = new KeptObjects<V1ConfigMap>({
    cachedOne: (namespace, name) =>
      cached.find((o) => o.metadata?.namespace === namespace && o.metadata?.name === name),
    keep: () => opts.keep ?? false,
    fetch: async (namespace, name) => {
      fetches.push(`${namespace}/${name}`);
      if (opts.stored instanceof Error) throw opts.stored;
      return opts.stored;
    },
    changed: () => changes++,
  });
  const all = () => kept.withKept(cached);
  const setCached = (objects: V1ConfigMap[]) => {
    cached = objects;
  };
  return { kept, fetches, changes: () => changes, all, setCached };
}

describe("KeptObjects: what a label-narrowed watch dropped, kept until the API server is asked", () => {
  it.each([
    ["an object in the watch comes from the cache, without a request", true, false, undefined, "cached", 0],
    [
      "an object outside the watch with nothing to keep: absent, no request",
      false,
      false,
      unlabelled(),
      undefined,
      0,
    ],
    [
      "an object outside the watch with something to keep: read from the API server",
      false,
      true,
      unlabelled(),
      "stored",
      1,
    ],
    [
      "an object that does not exist, with something to keep: absent, after one request",
      false,
      true,
      undefined,
      undefined,
      1,
    ],
  ] as const)("%s", async (_, inCache, keep, stored, expected, requests) => {
    const cachedObject = labelled();
    const w = world({ cached: inCache ? [cachedObject] : [], keep, stored });
    const got = await w.kept.get("ns", "web");
    expect(got).toBe(expected === "cached" ? cachedObject : expected === "stored" ? stored : undefined);
    expect(w.fetches).toHaveLength(requests);
  });

  it("throws when the API server cannot answer, deciding nothing", async () => {
    const object = labelled();
    const w = world({ cached: [object], keep: true, stored: new Error("connection refused") });
    w.setCached([]);
    w.kept.observe("delete", object);
    await expect(w.kept.get("ns", "web")).rejects.toThrow("connection refused");
    expect(w.all()).toEqual([object]);
  });

  it("keeps an object that left the watch until the API server says it is gone", async () => {
    const object = labelled();
    const w = world({ cached: [object], keep: true, stored: undefined });
    w.setCached([]);
    w.kept.observe("delete", object);
    expect(w.all()).toEqual([object]);
    expect(await w.kept.get("ns", "web")).toBeUndefined();
    expect(w.all()).toEqual([]);
    expect(w.changes()).toBe(1);
  });

  it("keeps an object that lost its label as the API server has it, and hands it back to the cache", async () => {
    const object = labelled();
    const stored = unlabelled();
    const w = world({ cached: [object], keep: true, stored });
    w.setCached([]);
    w.kept.observe("delete", object);
    expect(await w.kept.get("ns", "web")).toBe(stored);
    expect(w.all()).toEqual([stored]);
    expect(w.changes()).toBe(1);
    // Asked again with the same answer: nothing changed.
    await w.kept.get("ns", "web");
    expect(w.changes()).toBe(1);
    const relabelled = labelled("3");
    w.setCached([relabelled]);
    w.kept.observe("add", relabelled);
    expect(w.all()).toEqual([relabelled]);
  });

  it("forgets an object that left the watch when there is nothing to keep", () => {
    const object = labelled();
    const w = world({ cached: [object], keep: false });
    w.setCached([]);
    w.kept.observe("delete", object);
    expect(w.all()).toEqual([]);
  });
});
