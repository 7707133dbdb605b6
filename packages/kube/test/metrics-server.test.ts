import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { connect } from "node:tls";
import { httpsGet, makeCa, SecretVolume, waitFor } from "@swh/testenv";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AccessDecision,
  createKubeMetrics,
  createMetricsRegistry,
  type MetricsAccess,
  type OpsServer,
  startMetricsServer,
} from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

/** Decides from a table: the reviewer the API server stands for in these unit tests. */
function tableAccess(answers: Record<string, AccessDecision | Error>): MetricsAccess {
  return {
    async review(token) {
      const answer = answers[token] ?? "unauthenticated";
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const fingerprint = (certPem: string) => new X509Certificate(certPem).fingerprint256;

describe("startMetricsServer", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(opts: {
    access: MetricsAccess;
    certificateFiles?: { certFile: string; keyFile: string };
  }) {
    const registry = createMetricsRegistry();
    createKubeMetrics(registry).watchRestarts.inc({ informer: "pods" });
    const logger = memoryLogger();
    const server: OpsServer = await startMetricsServer({
      host: "127.0.0.1",
      port: 0,
      registry,
      commonName: "swh-test",
      certificatePollMs: 60_000,
      logger,
      ...opts,
    });
    cleanups.push(() => server.close());
    return { server, logger };
  }

  it("answers 401 without a token or with an unknown one, 403 when denied, 200 with the metrics when allowed", async () => {
    const { server } = await start({ access: tableAccess({ reader: "allowed", stranger: "denied" }) });
    const none = await httpsGet(server.port, "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(none.body).not.toContain("swh_");
    expect((await httpsGet(server.port, "/metrics", { token: "made-up" })).status).toBe(401);
    const denied = await httpsGet(server.port, "/metrics", { token: "stranger" });
    expect(denied.status).toBe(403);
    expect(denied.body).not.toContain("swh_");
    const allowed = await httpsGet(server.port, "/metrics", { token: "reader" });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('swh_watch_restarts_total{informer="pods"} 1');
    expect(allowed.body).toContain("process_cpu_user_seconds_total");
  });

  it("answers 503, never the metrics, when the review fails", async () => {
    const { server, logger } = await start({
      access: tableAccess({ reader: new Error("connect ECONNREFUSED") }),
    });
    const answer = await httpsGet(server.port, "/metrics", { token: "reader" });
    expect(answer.status).toBe(503);
    expect(answer.body).not.toContain("swh_");
    expect(logger.lines.some((l) => l.msg === "metrics access review failed")).toBe(true);
    // The token is never written to the logs.
    expect(JSON.stringify(logger.lines)).not.toContain("reader");
  });

  it("serves only /metrics: other paths are 404 without asking for a token, other methods 405", async () => {
    const { server } = await start({ access: tableAccess({ reader: "allowed" }) });
    for (const path of ["/healthz", "/readyz", "/", "/metrics/extra"]) {
      expect((await httpsGet(server.port, path, { token: "reader" })).status, path).toBe(404);
    }
    expect((await httpsGet(server.port, "/metrics", { token: "reader", method: "POST" })).status).toBe(405);
    expect((await httpsGet(server.port, "/metrics?x=1", { token: "reader" })).status).toBe(200);
  });

  it("makes a self-signed certificate when none is configured", async () => {
    const { server } = await start({ access: tableAccess({}) });
    const socket = connect({ host: "127.0.0.1", port: server.port, rejectUnauthorized: false });
    await once(socket, "secureConnect");
    const cert = socket.getPeerX509Certificate();
    socket.end();
    if (cert === undefined) throw new Error("no certificate presented");
    expect(cert.subject).toBe("CN=swh-test");
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it("serves the configured certificate and picks up a rotated one without a restart", async () => {
    const ca = makeCa("swh-metrics-test-ca");
    const first = ca.issue({ commonName: "localhost" });
    const volume = new SecretVolume(first);
    cleanups.push(() => volume.remove());
    const { server, logger } = await start({
      access: tableAccess({ reader: "allowed" }),
      certificateFiles: volume.files,
    });

    const before = await httpsGet(server.port, "/metrics", { token: "reader", ca: ca.certPem });
    expect(before.status).toBe(200);
    expect(before.fingerprint).toBe(fingerprint(first.certPem));

    const second = ca.issue({ commonName: "localhost" });
    volume.write(second);
    await waitFor("the rotated certificate to be served", async () => {
      const answer = await httpsGet(server.port, "/metrics", { token: "reader", ca: ca.certPem });
      return answer.fingerprint === fingerprint(second.certPem) && answer.status === 200;
    });
    expect(logger.lines.some((l) => l.msg === "metrics certificate reloaded")).toBe(true);
  });

  it("keeps serving the previous certificate when the new files do not match, and says so", async () => {
    const ca = makeCa("swh-metrics-test-ca");
    const first = ca.issue({ commonName: "localhost" });
    const volume = new SecretVolume(first);
    cleanups.push(() => volume.remove());
    const { server, logger } = await start({
      access: tableAccess({ reader: "allowed" }),
      certificateFiles: volume.files,
    });

    const other = ca.issue({ commonName: "localhost" });
    volume.write({ certPem: other.certPem, keyPem: first.keyPem });
    await waitFor("the failed reload to be logged", () =>
      logger.lines.some((l) => l.msg === "metrics certificate not reloaded; serving the previous one"),
    );
    const answer = await httpsGet(server.port, "/metrics", { token: "reader", ca: ca.certPem });
    expect(answer.status).toBe(200);
    expect(answer.fingerprint).toBe(fingerprint(first.certPem));
  });

  it("refuses to start when the configured files cannot be read, naming the file", async () => {
    await expect(
      start({
        access: tableAccess({}),
        certificateFiles: { certFile: "/nonexistent/tls.crt", keyFile: "/nonexistent/tls.key" },
      }),
    ).rejects.toThrow(/\/nonexistent\/tls\.crt/);
  });
});
