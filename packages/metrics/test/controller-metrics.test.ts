import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createControllerMetrics, recordServiceGauges } from "../src/controller-metrics.js";

async function series(registry: Registry): Promise<string[]> {
  const text = await registry.metrics();
  return text
    .split("\n")
    .filter((l) => l.startsWith("swh_service_"))
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
