import { swhInputFromObject } from "@swh/aggregation";
import { createLogger } from "@swh/kube";
import { createAgentMetrics } from "@swh/metrics";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { recordEndpointTransitions } from "../src/internal/swh-reports.js";
import { aSwhObject } from "./builders.js";

describe("recordEndpointTransitions", () => {
  it("records one Event per changed endpoint on the SWH, with the reason, and counts transitions", async () => {
    const registry = new Registry();
    const metrics = createAgentMetrics(registry, "test");
    const recorded: unknown[][] = [];
    const swh = swhInputFromObject(aSwhObject());
    if (!swh) throw new Error("bad builder");
    recordEndpointTransitions(
      swh,
      [
        {
          pod: "web-1",
          address: "10.244.1.5",
          portName: "http",
          port: 8080,
          ready: false,
          failure: { failingProbe: "HTTP :8080 /healthz", reason: "HTTPStatus" },
        },
        { pod: "web-2", address: "10.244.1.6", portName: "", port: 9090, ready: true },
      ],
      {
        events: { record: (...args) => recorded.push(args) },
        metrics,
        logger: createLogger({ level: "error" }),
      },
    );
    const subject = {
      kind: "ServiceWithHealthchecks",
      apiVersion: "network.deckhouse.io/v1alpha1",
      name: "web",
      namespace: "shop",
      uid: "uid-web",
    };
    expect(recorded).toEqual([
      [
        subject,
        "Warning",
        "EndpointNotReady",
        "pod web-1 (10.244.1.5) port http (8080) is not ready: HTTP :8080 /healthz HTTPStatus",
      ],
      [subject, "Normal", "EndpointReady", "pod web-2 (10.244.1.6) port 9090 is ready"],
    ]);
    const counts = (await metrics.endpointTransitions.get()).values.map((v) => [v.labels.to, v.value]);
    expect(counts).toEqual([
      ["not_ready", 1],
      ["ready", 1],
    ]);
  });
});
