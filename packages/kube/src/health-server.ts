/**
 * The health server of both apps: `/healthz` (the process serves requests) and `/readyz` (the app says it is
 * ready), nothing else. It has no authentication because the kubelet probes it, so it must never serve
 * `/metrics`: metrics are served by `startMetricsServer` (HTTPS, authorised) on their own port.
 */
import { createServer } from "node:http";
import { answerText, listenOps, type OpsServer } from "./internal/listen.js";
import type { Logger } from "./logger.js";

/** Options of `startHealthServer`: where it listens and what makes it ready. */
export interface HealthServerOptions {
  /** Undefined: every interface (`::`, or `0.0.0.0` without IPv6). */
  host?: string | undefined;
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  /** Answers `/readyz`: 200 when true, 503 when false or when it throws. */
  ready: () => boolean;
  logger: Logger;
}

/** Starts the health server; resolves once it listens, rejects when the address cannot be bound. */
export async function startHealthServer(opts: HealthServerOptions): Promise<OpsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") return answerText(res, 405, "method not allowed\n");
    if (path === "/healthz") return answerText(res, 200, "ok\n");
    if (path === "/readyz") {
      let ready = false;
      try {
        ready = opts.ready();
      } catch (err) {
        opts.logger.warn("readiness check threw", { err });
      }
      return ready ? answerText(res, 200, "ok\n") : answerText(res, 503, "not ready\n");
    }
    answerText(res, 404, "not found\n");
  });
  return listenOps(server, opts, opts.logger);
}
