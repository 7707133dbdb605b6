import { afterEach, describe, expect, it } from "vitest";
import { type OpsServer, startHealthServer } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

describe("startHealthServer", () => {
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("serves /healthz and /readyz following ready(), and nothing else: /metrics is 404", async () => {
    let ready = false;
    const started = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      ready: () => ready,
      logger: memoryLogger(),
    });
    server = started;
    const base = `http://127.0.0.1:${started.port}`;

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await metrics.text()).not.toContain("swh_");
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it("answers not ready when ready() throws", async () => {
    const started = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      ready: () => {
        throw new Error("boom");
      },
      logger: memoryLogger(),
    });
    server = started;
    expect((await fetch(`http://127.0.0.1:${started.port}/readyz`)).status).toBe(503);
  });

  it("rejects when the address is taken", async () => {
    const started = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      ready: () => true,
      logger: memoryLogger(),
    });
    server = started;
    await expect(
      startHealthServer({ host: "127.0.0.1", port: started.port, ready: () => true, logger: memoryLogger() }),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it("listens on every interface when no host is given", async () => {
    const started = await startHealthServer({ port: 0, ready: () => true, logger: memoryLogger() });
    server = started;
    expect((await fetch(`http://127.0.0.1:${started.port}/healthz`)).status).toBe(200);
  });
});
