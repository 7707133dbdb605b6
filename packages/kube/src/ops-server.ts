/**
 * The operations HTTP server of both apps: `/metrics` (Prometheus text from the app's registry), `/healthz`
 * (the process serves requests) and `/readyz` (the app says it is ready). The bind host is a parameter because the
 * chart binds it to 127.0.0.1 behind kube-rbac-proxy, which then is the only way to read metrics.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { Logger } from "./logger.js";

/** Options of `startOpsServer`: where it listens, the metrics it serves and what makes it ready. */
export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  registry: Registry;
  /** Answers `/readyz`: 200 when true, 503 when false or when it throws. */
  ready: () => boolean;
  logger: Logger;
}

/** A listening ops server. */
export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the ops server; resolves once it listens, rejects when the address cannot be bound. */
export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const text = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed\n");
    if (path === "/healthz") return text(200, "ok\n");
    if (path === "/readyz") {
      let ready = false;
      try {
        ready = opts.ready();
      } catch (err) {
        opts.logger.warn("readiness check threw", { err });
      }
      return ready ? text(200, "ok\n") : text(503, "not ready\n");
    }
    if (path === "/metrics") {
      opts.registry.metrics().then(
        (body) => {
          res.writeHead(200, { "content-type": opts.registry.contentType }).end(body);
        },
        (err: unknown) => {
          opts.logger.error("collecting metrics failed", { err });
          text(500, "metrics collection failed\n");
        },
      );
      return;
    }
    text(404, "not found\n");
  });
  // Scrapers and probes use short requests; do not let idle keep-alive sockets delay shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => opts.logger.error("ops server error", { err }));
  const port = (server.address() as AddressInfo).port;
  opts.logger.info("ops server listening", { host: opts.host, port });
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
