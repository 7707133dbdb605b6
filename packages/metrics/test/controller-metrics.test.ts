import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createControllerMetrics, recordNodeGauges, recordServiceGauges } from "../src/controller-metrics.js";

async function series(registry: Registry, prefix = "swh_service_"): Promise<string[]> {
  const text = await registry.metrics();
  return text
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .sort();
}

describe("recordServiceGauges", () => {
  it("exports an SWH's endpoint and fail-open series from its status counts, and removes them when it is gone", async () => {
    const registry = new Registry();
    const metrics = createControllerMetrics(registry, "test");
    recordServiceGauges(metrics, { namespace: "ns", name: "web" }, { ready: 2, total: 5, failOpenPorts: 1 });
    recordServiceGauges(metrics, { namespace: "ns", name: "db" }, { ready: 0, total: 0, failOpenPorts: 0 });
    expect(await series(registry)).toEqual([
      'swh_service_endpoints{namespace="ns",service="db",state="not_ready"} 0',
      'swh_service_endpoints{namespace="ns",service="db",state="ready"} 0',
      'swh_service_endpoints{namespace="ns",service="web",state="not_ready"} 3',
      'swh_service_endpoints{namespace="ns",service="web",state="ready"} 2',
      'swh_service_fail_open_ports{namespace="ns",service="db"} 0',
      'swh_service_fail_open_ports{namespace="ns",service="web"} 1',
    ]);
    recordServiceGauges(metrics, { namespace: "ns", name: "web" }, undefined);
    expect(await series(registry)).toEqual([
      'swh_service_endpoints{namespace="ns",service="db",state="not_ready"} 0',
      'swh_service_endpoints{namespace="ns",service="db",state="ready"} 0',
      'swh_service_fail_open_ports{namespace="ns",service="db"} 0',
    ]);
  });
});

describe("recordNodeGauges", () => {
  it("exports a node's heartbeat and NotReady series as 1 or 0, and removes them when the Node is gone", async () => {
    const registry = new Registry();
    const metrics = createControllerMetrics(registry, "test");
    recordNodeGauges(metrics, "a", { heartbeatStale: true, notReadyAgentAlive: false });
    recordNodeGauges(metrics, "b", { heartbeatStale: false, notReadyAgentAlive: true });
    const nodeSeries = async () => [
      ...(await series(registry, "swh_agent_heartbeat_stale{")),
      ...(await series(registry, "swh_node_not_")),
    ];
    expect(await nodeSeries()).toEqual([
      'swh_agent_heartbeat_stale{node="a"} 1',
      'swh_agent_heartbeat_stale{node="b"} 0',
      'swh_node_not_ready_agent_alive{node="a"} 0',
      'swh_node_not_ready_agent_alive{node="b"} 1',
    ]);
    recordNodeGauges(metrics, "a", undefined);
    expect(await nodeSeries()).toEqual([
      'swh_agent_heartbeat_stale{node="b"} 0',
      'swh_node_not_ready_agent_alive{node="b"} 1',
    ]);
  });
});
