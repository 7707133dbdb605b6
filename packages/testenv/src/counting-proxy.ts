/**
 * A TLS reverse proxy in front of the real API server that records every request passing through it, so a test
 * can count an app's writes, lists and watches. It forwards bytes unchanged (watches stream through), keeps the
 * caller's bearer token (RBAC still applies to the app's own identity), and answers 502 while the upstream is
 * down. `hold` keeps matching requests waiting (not forwarded, not answered) until `release`, so a test can make
 * a client miss changes without cutting anything else.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { makeCa } from "./make-ca.js";

/** One request seen by the proxy. */
export interface SeenRequest {
  method: string;
  path: string;
  at: number;
}

/** A running proxy: point a kubeconfig at `server` with `caPem` (`kubeConfigForToken(proxy, token)`). */
export interface CountingProxy {
  server: string;
  caPem: string;
  /** Every request so far, in arrival order (held ones included). */
  requests: SeenRequest[];
  /** Requests that change state (not GET, not a watch). */
  writes(sinceMs?: number): SeenRequest[];
  /** Holds every later request for which `matches` is true until `release()`. */
  hold(matches: (request: SeenRequest) => boolean): void;
  /** How many held requests wait. */
  held(): number;
  /** Stops holding and forwards the held requests. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a proxy in front of `upstream` on a free loopback port. */
export async function startCountingProxy(upstream: {
  server: string;
  caPem: string;
}): Promise<CountingProxy> {
  const ca = makeCa("counting-proxy");
  const cert = ca.issue({ commonName: "127.0.0.1", altNames: ["127.0.0.1"] });
  const target = new URL(upstream.server);
  const requests: SeenRequest[] = [];
  let holding: ((request: SeenRequest) => boolean) | undefined;
  const waiting: (() => void)[] = [];
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const seen = { method: req.method ?? "", path: req.url ?? "", at: Date.now() };
    requests.push(seen);
    if (holding?.(seen)) {
      req.pause();
      waiting.push(() => forward(req, res));
      return;
    }
    forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse) => {
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
    req.resume();
    res.on("close", () => out.destroy());
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    requests,
    writes: (sinceMs = 0) =>
      requests.filter((r) => r.at >= sinceMs && r.method !== "GET" && r.method !== "HEAD"),
    hold: (matches) => {
      holding = matches;
    },
    held: () => waiting.length,
    release: () => {
      holding = undefined;
      for (const go of waiting.splice(0)) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
