/**
 * A TLS reverse proxy in front of the real API server that records every request passing through it, so a test
 * can count the controller's writes. It forwards bytes unchanged (watches stream through), keeps the caller's
 * bearer token (RBAC still applies to the controller's own identity), and answers 502 while the upstream is down.
 */
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { makeCa } from "@swh/testenv";

/** One request seen by the proxy. */
export interface SeenRequest {
  method: string;
  path: string;
  at: number;
}

export interface CountingProxy {
  server: string;
  caPem: string;
  requests: SeenRequest[];
  /** Requests that change state (not GET, not a watch). */
  writes(sinceMs?: number): SeenRequest[];
  close(): Promise<void>;
}

export async function startCountingProxy(upstream: {
  server: string;
  caPem: string;
}): Promise<CountingProxy> {
  const ca = makeCa("counting-proxy");
  const cert = ca.issue({ commonName: "127.0.0.1", altNames: ["127.0.0.1"] });
  const target = new URL(upstream.server);
  const requests: SeenRequest[] = [];
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", at: Date.now() });
    const headers = { ...req.headers, host: target.host };
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        ca: upstream.caPem,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        upstreamRes.on("error", () => res.destroy());
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(out);
    res.on("close", () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    requests,
    writes: (sinceMs = 0) =>
      requests.filter((r) => r.at >= sinceMs && r.method !== "GET" && r.method !== "HEAD"),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
