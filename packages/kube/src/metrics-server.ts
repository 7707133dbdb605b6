/**
 * The metrics server of both apps: `GET /metrics` over HTTPS for callers the API server authorises (see
 * `metrics-access.ts`), nothing else. No token → 401, a token whose user lacks `get` on `/metrics` → 403, a review
 * that could not be made → 503 (never the metrics). The certificate comes from files, reloaded when they rotate,
 * or is self-signed at start-up (scrapers then skip verification, as with kube-rbac-proxy's default). ADR 0017.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import { hostname } from "node:os";
import type { Registry } from "prom-client";
import { answerText, listenOps, type OpsServer } from "./internal/listen.js";
import type { Logger } from "./logger.js";
import type { MetricsAccess } from "./metrics-access.js";
import { type CertificatePair, createSelfSignedCertificate } from "./self-signed-certificate.js";
import {
  type CertificateFiles,
  type WatchedCertificate,
  watchCertificateFiles,
} from "./serving-certificate.js";

/** Options of `startMetricsServer`. */
export interface MetricsServerOptions {
  /** Undefined: every interface (`::`, or `0.0.0.0` without IPv6). */
  host?: string | undefined;
  /** 0 picks a free port (see the returned `port`). */
  port: number;
  registry: Registry;
  /** Decides each bearer token; wrap the API reviewer in `cachedMetricsAccess`. */
  access: MetricsAccess;
  /** Serving certificate files, reloaded when they change; undefined: a self-signed certificate made now. */
  certificateFiles?: CertificateFiles | undefined;
  /** Common name of the self-signed certificate (e.g. `swh-agent`). */
  commonName: string;
  /** Re-read period of the certificate files (tests shorten it). Default 10 s. */
  certificatePollMs?: number;
  logger: Logger;
}

// A self-signed certificate is random per start and cannot be pinned, so scrapers skip verification, which checks
// no dates either; ten years means a long-running pod never serves an expired one to a client that does check.
const SELF_SIGNED_DAYS = 3650;

/** Starts the metrics server; resolves once it listens, rejects when the address or the certificate is unusable. */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<OpsServer> {
  const log = opts.logger;
  let watched: WatchedCertificate | undefined;
  let pair: CertificatePair;
  let onChange: (next: CertificatePair) => void = () => {};
  if (opts.certificateFiles) {
    watched = await watchCertificateFiles({
      ...opts.certificateFiles,
      logger: log,
      onChange: (next) => onChange(next),
      ...(opts.certificatePollMs === undefined ? {} : { pollMs: opts.certificatePollMs }),
    });
    pair = watched.current();
  } else {
    pair = createSelfSignedCertificate({
      commonName: opts.commonName,
      altNames: [...new Set([hostname(), "localhost"])],
      days: SELF_SIGNED_DAYS,
    });
    log.info("metrics certificate self-signed", { commonName: opts.commonName });
  }
  const server = createServer({ cert: pair.certPem, key: pair.keyPem, minVersion: "TLSv1.2" }, (req, res) => {
    handle(req, res, opts).catch((err: unknown) => {
      log.error("metrics request failed", { err });
      if (!res.headersSent) answerText(res, 500, "internal error\n");
    });
  });
  onChange = (next) => server.setSecureContext({ cert: next.certPem, key: next.keyPem });
  try {
    return await listenOps(server, opts, log, () => watched?.close());
  } catch (err) {
    watched?.close();
    throw err;
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: MetricsServerOptions): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/metrics") return answerText(res, 404, "not found\n");
  if (req.method !== "GET" && req.method !== "HEAD") return answerText(res, 405, "method not allowed\n");
  const token = bearerToken(req.headers.authorization);
  if (token === undefined) return unauthorized(res);
  let decision: Awaited<ReturnType<MetricsAccess["review"]>>;
  try {
    decision = await opts.access.review(token);
  } catch (err) {
    // Fail closed: without a decision there are no metrics, and the scraper sees a server-side error.
    opts.logger.warn("metrics access review failed", { err });
    return answerText(res, 503, "authorization unavailable\n", { "retry-after": "10" });
  }
  if (decision === "unauthenticated") return unauthorized(res);
  if (decision === "denied") return answerText(res, 403, "forbidden: get on /metrics is not allowed\n");
  const body = await opts.registry.metrics();
  res
    .writeHead(200, { "content-type": opts.registry.contentType })
    .end(req.method === "HEAD" ? undefined : body);
}

function unauthorized(res: ServerResponse): void {
  answerText(res, 401, "unauthorized: a bearer token is required\n", {
    "www-authenticate": 'Bearer realm="metrics"',
  });
}

/** The token of an `Authorization: Bearer <token>` header, else undefined. */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}
