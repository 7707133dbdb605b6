import type { V1EndpointSlice } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { endpointRows, renderEndpointTable, tableSignature } from "../src/index.js";

function aSlice(
  swh: string,
  port: { name: string; port: number },
  endpoints: [string, boolean][],
): V1EndpointSlice {
  return Object.freeze({
    addressType: "IPv4",
    metadata: { labels: { "kubernetes.io/service-name": swh } },
    ports: [port],
    endpoints: endpoints.map(([address, ready]) => ({
      addresses: [address],
      conditions: { ready, serving: ready, terminating: false },
      nodeName: "node-a",
      targetRef: { kind: "Pod", name: `pod-${address}`, namespace: "demo" },
    })),
  });
}

describe("endpoint table", () => {
  it("shows every address per SWH and port, sorted, with its readiness", () => {
    const rows = endpointRows([
      aSlice("web", { name: "http", port: 8080 }, [
        ["10.244.1.11", false],
        ["10.244.1.10", true],
      ]),
      aSlice("smtp", { name: "smtp", port: 2525 }, [["10.244.1.10", true]]),
    ]);
    expect(rows.map((r) => [r.swh, r.port, r.address, r.ready])).toEqual([
      ["smtp", "smtp/2525", "10.244.1.10", true],
      ["web", "http/8080", "10.244.1.10", true],
      ["web", "http/8080", "10.244.1.11", false],
    ]);
    const text = renderEndpointTable(rows).split("\n");
    expect(text[0]).toMatch(/^SWH\s+PORT\s+POD\s+NODE\s+ADDRESS\s+READY/);
    expect(text[3]).toMatch(/web\s+http\/8080\s+pod-10.244.1.11\s+node-a\s+10.244.1.11\s+no/);
  });

  it("changes its signature when one endpoint flips and not when slices are reordered", () => {
    const a = aSlice("web", { name: "http", port: 8080 }, [["10.244.1.10", true]]);
    const b = aSlice("web", { name: "metrics", port: 9090 }, [["10.244.1.10", true]]);
    const flipped = aSlice("web", { name: "http", port: 8080 }, [["10.244.1.10", false]]);
    expect(tableSignature(endpointRows([a, b]))).toBe(tableSignature(endpointRows([b, a])));
    expect(tableSignature(endpointRows([a, b]))).not.toBe(tableSignature(endpointRows([flipped, b])));
  });
});
