import { describe, expect, it } from "vitest";
import { formatCount, renderBalancerTraffic } from "../src/index.js";

describe("formatCount", () => {
  it("lists pods by name and the distinct failures", () => {
    expect(
      formatCount({
        total: 5,
        byPod: { "mail-1": 2, "mail-0": 2 },
        failed: 2,
        failures: ["mail-0: HTTP 503"],
      }),
    ).toBe("mail-0 2, mail-1 2 · 2 failed (mail-0: HTTP 503)");
    expect(formatCount({ total: 3, byPod: {}, failed: 3, failures: ["ECONNREFUSED"] })).toBe(
      "nobody · 3 failed (ECONNREFUSED)",
    );
  });
});

describe("renderBalancerTraffic", () => {
  const balancer = { swh: "web", port: 80, protocol: "http" as const, clusterIP: "10.96.0.10" };
  const count = { total: 50, byPod: { "mail-1": 50 }, failed: 0, failures: [] };

  it("says when kube-proxy needed several measurements, or never matched the table", () => {
    expect(renderBalancerTraffic([{ balancer, count, agrees: true, attempts: 1, waitedMs: 40 }])).toBe(
      "traffic  web   10.96.0.10:80    (50 HTTP requests)     mail-1 50",
    );
    expect(
      renderBalancerTraffic([{ balancer, count, agrees: true, attempts: 3, waitedMs: 1_250 }]),
    ).toContain("(matched the table after 3 measurements, 1.3 s)");
    expect(
      renderBalancerTraffic([{ balancer, count, agrees: false, attempts: 9, waitedMs: 10_100 }]),
    ).toContain("← does not match the table after 10.1 s");
  });
});
