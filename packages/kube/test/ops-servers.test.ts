import { createServer, get } from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { httpsGet } from "@swh/testenv";
import { afterEach, describe, expect, it } from "vitest";
import { createMetricsRegistry, type MetricsAccess, type OpsServers, startOpsServers } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

const allowReader: MetricsAccess = { review: async (token) => (token === "reader" ? "allowed" : "denied") };

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    }).on("error", reject);
  });
}

describe("startOpsServers", () => {
  const running: OpsServers[] = [];
  afterEach(async () => {
    for (const ops of running.splice(0)) await ops.close();
  });
  const local = { host: "127.0.0.1", port: 0 };

  it("serves readiness without authentication and the metrics only to an authorised token", async () => {
    let ready = false;
    const ops = await startOpsServers(
      {
        kubeConfig: new KubeConfig(),
        commonName: "swh-test",
        healthBindAddress: local,
        metricsBindAddress: local,
        metricsAccess: allowReader,
      },
      createMetricsRegistry(),
      () => ready,
      memoryLogger(),
    );
    running.push(ops);
    const { health = 0, metrics = 0 } = ops.ports;
    expect((await httpGet(health, "/readyz")).status).toBe(503);
    ready = true;
    expect((await httpGet(health, "/readyz")).status).toBe(200);
    expect((await httpGet(health, "/metrics")).body).not.toContain("process_cpu");
    expect((await httpsGet(metrics, "/metrics", { token: "stranger" })).status).toBe(403);
    const allowed = await httpsGet(metrics, "/metrics", { token: "reader" });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain("process_cpu_user_seconds_total");
  });

  it("starts nothing for an address left undefined", async () => {
    const ops = await startOpsServers(
      { kubeConfig: new KubeConfig(), commonName: "swh-test" },
      createMetricsRegistry(),
      () => true,
      memoryLogger(),
    );
    running.push(ops);
    expect(ops.ports).toEqual({});
  });

  it("closes the health server again when the metrics server cannot start, and says why", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const takenPort = (taken.address() as { port: number }).port;
    const healthPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    try {
      await expect(
        startOpsServers(
          {
            kubeConfig: new KubeConfig(),
            commonName: "swh-test",
            healthBindAddress: { host: "127.0.0.1", port: healthPort },
            metricsBindAddress: { host: "127.0.0.1", port: takenPort },
            metricsAccess: allowReader,
          },
          createMetricsRegistry(),
          () => true,
          memoryLogger(),
        ),
      ).rejects.toThrow(/EADDRINUSE|in use/);
      // The health port is free again: nothing was left listening.
      const again = createServer();
      await new Promise<void>((resolve, reject) => {
        again.once("error", reject);
        again.listen(healthPort, "127.0.0.1", resolve);
      });
      await new Promise((resolve) => again.close(resolve));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
