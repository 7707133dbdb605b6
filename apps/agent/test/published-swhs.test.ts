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
    services: {
      list: () => cached,
      get: (name, namespace) =>
        cached.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === name),
    },
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

  it("reads a Service outside the watch from the API server while the node has slices of it", async () => {
    const stored = unlabelled();
    const w = world({ hasSlices: true, stored });
    expect(await w.view.service("ns", "web")).toBe(stored);
    expect(w.fetches).toEqual(["ns/web"]);
    expect(w.view.list().map((s) => s.metadata.name)).toEqual(["web"]);
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
});
