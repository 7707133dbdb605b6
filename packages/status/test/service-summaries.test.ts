import type { V1Service } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { externalIPSummary, portsSummary } from "../src/internal/service-summaries.js";

const svc = (
  spec: NonNullable<V1Service["spec"]>,
  ingress?: { ip?: string; hostname?: string }[],
): V1Service => (ingress === undefined ? { spec } : { spec, status: { loadBalancer: { ingress } } });

describe("printer-column summaries", () => {
  it.each([
    [svc({ type: "ClusterIP", ports: [{ port: 80, protocol: "TCP" }] }), "80/TCP", "<none>"],
    [
      svc({
        type: "NodePort",
        ports: [
          { port: 80, nodePort: 30080 },
          { port: 53, protocol: "UDP", nodePort: 30053 },
        ],
      }),
      "80:30080/TCP,53:30053/UDP",
      "<none>",
    ],
    [svc({ type: "LoadBalancer", ports: [{ port: 443 }] }), "443/TCP", "<pending>"],
    [
      svc({ type: "LoadBalancer", ports: [{ port: 443 }], externalIPs: ["192.0.2.1"] }, [
        { ip: "192.0.2.7" },
        { hostname: "lb.example.com" },
      ]),
      "443/TCP",
      "192.0.2.1,192.0.2.7,lb.example.com",
    ],
    [svc({ type: "ExternalName", externalName: "db.example.com" }), "<none>", "db.example.com"],
  ])("%#", (service, ports, external) => {
    expect(portsSummary(service)).toBe(ports);
    expect(externalIPSummary(service)).toBe(external);
  });
});
