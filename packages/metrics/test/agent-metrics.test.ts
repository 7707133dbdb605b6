import type { EndpointGroup } from "@swh/aggregation";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  countEndpoints,
  createAgentMetrics,
  recordEndpointCounts,
  recordSliceWrites,
} from "../src/agent-metrics.js";

async function series(registry: Registry): Promise<string[]> {
  const text = await registry.metrics();
  return text
    .split("\n")
    .filter((l) => l.startsWith("swh_endpoint"))
    .sort();
}

describe("recordEndpointCounts", () => {
  it("exports an SWH's series while it has endpoints on the node and removes them when it has none or is gone", async () => {
    const registry = new Registry();
    const metrics = createAgentMetrics(registry, "test");
    const web = { namespace: "ns", name: "web" };
    const db = { namespace: "ns", name: "db" };
    recordEndpointCounts(metrics, web, { ready: 2, not_ready: 1, terminating: 0 });
    metrics.endpointTransitions.inc({ namespace: "ns", service: "web", to: "ready" });
    recordEndpointCounts(metrics, db, { ready: 0, not_ready: 0, terminating: 0 });
    expect(await series(registry)).toEqual([
      'swh_endpoint_transitions_total{namespace="ns",service="web",to="ready"} 1',
      'swh_endpoints{namespace="ns",service="web",state="not_ready"} 1',
      'swh_endpoints{namespace="ns",service="web",state="ready"} 2',
      'swh_endpoints{namespace="ns",service="web",state="terminating"} 0',
    ]);

    recordEndpointCounts(metrics, web, { ready: 0, not_ready: 0, terminating: 0 });
    expect(await series(registry)).toEqual([]);
    recordEndpointCounts(metrics, web, { ready: 1, not_ready: 0, terminating: 0 });
    recordEndpointCounts(metrics, web, undefined);
    expect(await series(registry)).toEqual([]);
  });
});

describe("countEndpoints", () => {
  const endpoint = (ready: boolean, terminating = false) => ({
    addresses: ["10.244.1.5"],
    conditions: { ready, serving: ready, terminating },
  });
  const group = (...endpoints: ReturnType<typeof endpoint>[]) =>
    ({
      portName: "http",
      port: 8080,
      protocol: "TCP",
      addressFamily: "IPv4",
      endpoints,
    }) as unknown as EndpointGroup;

  it("counts each endpoint of every port once, terminating before ready", () => {
    const counts = countEndpoints([
      group(endpoint(true), endpoint(false), endpoint(true, true)),
      group(endpoint(true), endpoint(false, true)),
    ]);
    expect(counts).toEqual({ ready: 2, not_ready: 1, terminating: 2 });
  });

  it("counts nothing for no groups", () => {
    expect(countEndpoints([])).toEqual({ ready: 0, not_ready: 0, terminating: 0 });
  });
});

describe("recordSliceWrites", () => {
  it("counts accepted writes as success, refused or failed ones as error, stale views as conflict", async () => {
    const registry = new Registry();
    const metrics = createAgentMetrics(registry, "test");
    const none = { ok: 0, conflict: 0, notFound: 0, alreadyExists: 0, notOwned: 0, error: 0 };
    recordSliceWrites(metrics, {
      create: { ...none, ok: 2, alreadyExists: 1 },
      update: { ...none, ok: 1, conflict: 2, notOwned: 1 },
      delete: { ...none, notFound: 1, error: 1 },
    });
    recordSliceWrites(metrics, { create: { ...none, ok: 1 }, update: none, delete: none });
    const text = await registry.metrics();
    const lines = text
      .split("\n")
      .filter((l) => l.startsWith("swh_slice_writes_total{"))
      .sort();
    expect(lines).toEqual([
      'swh_slice_writes_total{action="create",result="conflict"} 1',
      'swh_slice_writes_total{action="create",result="success"} 3',
      'swh_slice_writes_total{action="delete",result="conflict"} 1',
      'swh_slice_writes_total{action="delete",result="error"} 1',
      'swh_slice_writes_total{action="update",result="conflict"} 2',
      'swh_slice_writes_total{action="update",result="error"} 1',
      'swh_slice_writes_total{action="update",result="success"} 1',
    ]);
  });
});
