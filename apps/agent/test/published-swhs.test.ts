import type { V1Service } from "@kubernetes/client-node";
import { newServiceFor } from "@swh/aggregation";
import { type ServiceWithHealthchecks, serviceWithHealthchecks, tcpProbe } from "@swh/crd-types";
import { ANNOTATION_SWH_SPEC } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { PublishedSwhs } from "../src/internal/published-swhs.js";

const swh: ServiceWithHealthchecks = serviceWithHealthchecks(
  { name: "web", namespace: "ns" },
  { ports: [{ name: "http", port: 80, targetPort: 8080 }], healthcheck: { probes: [tcpProbe(8080)] } },
);
swh.metadata.uid = "uid-web";

/** The Service the controller creates for `swh`: its own code, so the published spec is the real one. */
function managed(resourceVersion = "1"): V1Service {
  const service = newServiceFor(swh);
  return { ...service, metadata: { ...service.metadata, resourceVersion } };
}
const unlabelled = (): V1Service => {
  const service = managed("2");
  return { ...service, metadata: { ...service.metadata, labels: {} } };
};

/** A view over a fake informer cache and API server, counting requests and change notices. */
function world(opts: { cached?: V1Service[]; hasSlices?: boolean; stored?: V1Service | Error | undefined }) {
  let cached = opts.cached ?? [];
  const fetches: string[] = [];
  let changes = 0;
  const view = new PublishedSwhs({
    cached: () => cached,
    cachedOne: (namespace, name) =>
      cached.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name),
    hasSlices: () => opts.hasSlices ?? false,
    fetch: async (namespace, name) => {
      fetches.push(`${namespace}/${name}`);
      if (opts.stored instanceof Error) throw opts.stored;
      return opts.stored;
    },
    changed: () => changes++,
  });
  return {
    view,
    fetches,
    changes: () => changes,
    setCached: (services: V1Service[]) => {
      cached = services;
    },
  };
}

describe("PublishedSwhs: SWHs read from their Services", () => {
  it("lists the SWHs whose Services publish a valid spec, with the SWH's identity", () => {
    const broken = managed();
    const bad: V1Service = {
      ...broken,
      metadata: { ...broken.metadata, name: "bad", annotations: { [ANNOTATION_SWH_SPEC]: "{" } },
    };
    const { view } = world({ cached: [managed(), bad] });
    expect(view.list()).toEqual([
      {
        apiVersion: swh.apiVersion,
        kind: swh.kind,
        metadata: { name: "web", namespace: "ns", uid: "uid-web" },
        spec: swh.spec,
      },
    ]);
    expect(view.read(bad)).toMatchObject({ state: "invalid" });
  });

  it.each([
    ["a labelled Service comes from the cache, without a request", true, false, undefined, "cached", 0],
    [
      "a Service outside the watch while the node has nothing to withdraw: absent, no request",
      false,
      false,
      unlabelled(),
      undefined,
      0,
    ],
    [
      "a Service outside the watch while the node has slices: read from the API server",
      false,
      true,
      unlabelled(),
      "stored",
      1,
    ],
    [
      "a Service that does not exist while the node has slices: absent, after one request",
      false,
      true,
      undefined,
      undefined,
      1,
    ],
  ] as const)("%s", async (_, inCache, hasSlices, stored, expected, requests) => {
    const cachedService = managed();
    const w = world({ cached: inCache ? [cachedService] : [], hasSlices, stored });
    const got = await w.view.service("ns", "web");
    expect(got).toBe(expected === "cached" ? cachedService : expected === "stored" ? stored : undefined);
    expect(w.fetches).toHaveLength(requests);
  });

  it("fails when the API server cannot answer, so the slices stay as they are", async () => {
    const w = world({ hasSlices: true, stored: new Error("connection refused") });
    await expect(w.view.service("ns", "web")).rejects.toThrow("connection refused");
  });

  it("keeps probing an SWH whose Service left the watch until the API server says it is gone", async () => {
    const service = managed();
    const w = world({ cached: [service], hasSlices: true, stored: undefined });
    w.setCached([]);
    w.view.observe("delete", service);
    // Between the watch event and the answer, the SWH is still known: its probe targets are not dropped.
    expect(w.view.list().map((s) => s.metadata.name)).toEqual(["web"]);
    expect(await w.view.service("ns", "web")).toBeUndefined();
    expect(w.view.list()).toEqual([]);
    expect(w.changes()).toBe(1);
  });

  it("keeps an SWH whose Service lost its label, as the API server has it, and hands it back to the cache", async () => {
    const service = managed();
    const stored = unlabelled();
    const w = world({ cached: [service], hasSlices: true, stored });
    w.setCached([]);
    w.view.observe("delete", service);
    expect(await w.view.service("ns", "web")).toBe(stored);
    expect(w.view.services()).toEqual([stored]);
    expect(w.changes()).toBe(1);
    const relabelled = managed("3");
    w.setCached([relabelled]);
    w.view.observe("add", relabelled);
    expect(w.view.services()).toEqual([relabelled]);
  });

  it("forgets a Service that left the watch when this node has nothing of it", () => {
    const service = managed();
    const w = world({ cached: [service], hasSlices: false });
    w.setCached([]);
    w.view.observe("delete", service);
    expect(w.view.list()).toEqual([]);
  });
});
