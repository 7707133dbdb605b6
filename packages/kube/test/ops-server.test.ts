import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  createKubeMetrics,
  createLogger,
  createMetricsRegistry,
  type OpsServer,
  startOpsServer,
} from "../src/index.js";

const quiet = createLogger({ stream: new Writable({ write: (_c, _e, cb) => cb() }) });

describe("startOpsServer", () => {
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("serves /healthz, /readyz following ready() and /metrics with ours and the process metrics", async () => {
    const registry = createMetricsRegistry();
    const metrics = createKubeMetrics(registry);
    metrics.watchRestarts.inc({ informer: "pods" });
    let ready = false;
    server = await startOpsServer({
      host: "127.0.0.1",
      port: 0,
      registry,
      ready: () => ready,
      logger: quiet,
    });
    const base = `http://127.0.0.1:${server.port}`;

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const body = await res.text();
    expect(body).toContain('swh_watch_restarts_total{informer="pods"} 1');
    expect(body).toContain("process_cpu_user_seconds_total");
    expect(body).toContain("swh_leader 0");
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it("answers not ready when ready() throws", async () => {
    server = await startOpsServer({
      host: "127.0.0.1",
      port: 0,
      registry: createMetricsRegistry(),
      ready: () => {
        throw new Error("boom");
      },
      logger: quiet,
    });
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(503);
  });

  it("rejects when the address is taken", async () => {
    server = await startOpsServer({
      host: "127.0.0.1",
      port: 0,
      registry: createMetricsRegistry(),
      ready: () => true,
      logger: quiet,
    });
    await expect(
      startOpsServer({
        host: "127.0.0.1",
        port: server.port,
        registry: createMetricsRegistry(),
        ready: () => true,
        logger: quiet,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
