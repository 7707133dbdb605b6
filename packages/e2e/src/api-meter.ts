/**
 * A metering proxy between one API client and kube-apiserver, for benchmarks that need one process's API load:
 * requests by verb and resource, bytes each way, and watch events per watched resource. The API server's own
 * metrics and audit log cannot tell agents apart (they share a ServiceAccount, and neither counts bytes or
 * events per client), so each agent talks to its own meter. The meter ends TLS with a certificate of its own CA
 * (the client's kubeconfig trusts that CA) and forwards every HTTP/1.1 request unchanged, credentials included,
 * to the API server over a keep-alive pool; watch responses stream through. Byte counts are HTTP message bodies
 * (what the client sends and reads, before TLS); headers are not counted.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { type ClusterEndpoint, makeCa } from "@swh/testenv";

/** What one client did through its meter so far. Keys: `<verb> <resource>`, e.g. `watch pods`, `update leases`. */
export interface ApiUsage {
  /** Requests by verb and resource; a watch counts once, when it starts. */
  requests: Record<string, number>;
  /** Response body bytes the client received. */
  bytesReceived: number;
  /** Request body bytes the client sent. */
  bytesSent: number;
  /** Watch events received (ADDED, MODIFIED, DELETED, ERROR), by watched resource. */
  watchEvents: Record<string, number>;
  /** BOOKMARK events received (no object change: the server's progress notes), by watched resource. */
  bookmarks: Record<string, number>;
}

/** A running meter: point the client at `endpoint`. */
export interface ApiMeter {
  readonly endpoint: ClusterEndpoint;
  /** A copy of the counts so far. */
  usage(): ApiUsage;
  close(): Promise<void>;
}

/** Starts a meter on a free loopback port in front of `upstream`. */
export async function startApiMeter(upstream: ClusterEndpoint): Promise<ApiMeter> {
  const ca = makeCa("swh-api-meter-ca");
  const serving = ca.issue({ commonName: "swh-api-meter", altNames: ["127.0.0.1"] });
  const pool = new Agent({ keepAlive: true, ca: upstream.caPem });
  const target = new URL(upstream.server);
  const counts: ApiUsage = { requests: {}, bytesReceived: 0, bytesSent: 0, watchEvents: {}, bookmarks: {} };
  const add = (map: Record<string, number>, key: string, n = 1) => {
    map[key] = (map[key] ?? 0) + n;
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const { verb, resource } = describeRequest(req.method ?? "GET", req.url ?? "/");
    add(counts.requests, `${verb} ${resource}`);
    const { host: _host, ...headers } = req.headers;
    const out = request(
      {
        agent: pool,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // The API server streams a watch as one JSON event per line; only the line being received is kept.
        let line = "";
        answer.on("data", (chunk: Buffer) => {
          counts.bytesReceived += chunk.length;
          if (verb === "watch") {
            const lines = (line + chunk.toString("utf8")).split("\n");
            line = lines.pop() ?? "";
            for (const event of lines) {
              const bookmark = event.startsWith('{"type":"BOOKMARK"');
              add(bookmark ? counts.bookmarks : counts.watchEvents, resource);
            }
          }
          res.write(chunk);
        });
        answer.on("end", () => res.end());
        answer.on("error", () => res.destroy());
      },
    );
    req.on("data", (chunk: Buffer) => {
      counts.bytesSent += chunk.length;
    });
    req.pipe(out);
    out.on("error", () => res.destroy());
    // The client closed (e.g. it aborted a watch): end the upstream request too.
    res.on("close", () => out.destroy());
  };

  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, forward);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: { server: `https://127.0.0.1:${port}`, caPem: ca.certPem },
    usage: () => structuredClone(counts),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      pool.destroy();
    },
  };
}

/** The verb (`watch`, `list`, `get`, `create`, `update`, `patch`, `delete`) and resource of an API request. */
export function describeRequest(method: string, url: string): { verb: string; resource: string } {
  const { pathname, searchParams } = new URL(url, "https://meter.invalid");
  const parts = pathname.split("/").filter(Boolean);
  // /api/v1/... or /apis/<group>/<version>/...; a legacy /watch/ segment comes first.
  let rest = parts[0] === "api" ? parts.slice(2) : parts[0] === "apis" ? parts.slice(3) : parts;
  let watch = searchParams.get("watch") === "true" || searchParams.get("watch") === "1";
  if (rest[0] === "watch") {
    watch = true;
    rest = rest.slice(1);
  }
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [resource = pathname, name, subresource] = rest;
  const kind = subresource === undefined ? resource : `${resource}/${subresource}`;
  const verbs: Record<string, string> = {
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: name === undefined ? "deletecollection" : "delete",
  };
  const verb = watch ? "watch" : (verbs[method.toUpperCase()] ?? (name === undefined ? "list" : "get"));
  return { verb, resource: kind };
}
