/**
 * Records the HTTP corpus replayed by test/http-corpus.test.ts: raw responses of real servers — nginx, HAProxy
 * and Node's http — to the exact request the probe sends, byte for byte as they came off the socket. For each
 * response it also stores what Node's own HTTP client (llhttp, a parser independent of ours) read from the same
 * server for the same request: the status and the first 4 KiB of the body, the oracle the replay checks against.
 *
 *   pnpm --filter @swh/probes build
 *   bash scripts/netns.sh node packages/probes/scripts/record-http-corpus.ts   # needs nginx and haproxy on PATH
 *
 * Everything listens on 127.0.0.1 inside the private network namespace and is stopped before the script ends.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHttpRequest, type HttpProbeConfig, MAX_BODY_BYTES } from "@swh/probes";

const HOST = "127.0.0.1";
const NODE_PORT = 18080;
const NGINX_PORT = 18081;
const HAPROXY_PORT = 18082;
const OUT = new URL("../test/fixtures/http-corpus/", import.meta.url);

/** The Node upstream: plain, chunked, trailers, early hints, no content, large. */
const upstream = createServer((req, res) => {
  switch (req.url) {
    case "/plain":
      return res.end('{"status":"UP"}');
    case "/chunked":
      res.write("first part, ");
      return setImmediate(() => res.end("second part: READY"));
    case "/trailers":
      res.writeHead(200, { "Content-Type": "text/plain", Trailer: "X-Checksum" });
      res.write("body before trailers");
      res.addTrailers({ "X-Checksum": "abc123" });
      return res.end();
    case "/early-hints":
      res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
      return res.end("after hints");
    case "/no-content":
      return res.writeHead(204).end();
    case "/large":
      return res.end(`${"x".repeat(10_000)}TAIL`);
    case "/error":
      return res.writeHead(503, { "Content-Type": "text/plain" }).end("down for maintenance");
    default:
      return res.writeHead(404).end("not found");
  }
});

const NGINX_CONF = (dir: string) => `
daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
    listen ${HOST}:${NGINX_PORT};
    root ${dir}/www;
    location = /static.txt { }
    location = /redirect { return 301 /static.txt; }
    location = /no-content { return 204; }
    location = /teapot { return 418 "short and stout"; }
    location /up/ { proxy_pass http://${HOST}:${NODE_PORT}/; proxy_http_version 1.1; }
  }
}`;

const HAPROXY_CONF = `
global
  log stderr format raw local0 warning
defaults
  mode http
  timeout connect 2s
  timeout client 5s
  timeout server 5s
frontend fe
  bind ${HOST}:${HAPROXY_PORT}
  http-request return status 200 content-type text/plain string "haproxy says ok" if { path /return }
  http-request deny if { path /deny }
  use_backend down if { path /down }
  default_backend node
backend node
  server n1 ${HOST}:${NODE_PORT}
backend down
  server gone ${HOST}:1
`;

/** What is recorded per case: the request it answers and the oracle from Node's client. */
interface CorpusEntry {
  file: string;
  server: "nginx" | "haproxy" | "node";
  method: "GET" | "HEAD";
  path: string;
  status: number;
  /** The first MAX_BODY_BYTES of the body as Node's client read it, base64. */
  bodyBase64: string;
}

const CASES: ReadonlyArray<[CorpusEntry["server"], number, "GET" | "HEAD", string]> = [
  ["node", NODE_PORT, "GET", "/plain"],
  ["node", NODE_PORT, "GET", "/chunked"],
  ["node", NODE_PORT, "GET", "/trailers"],
  ["node", NODE_PORT, "GET", "/early-hints"],
  ["node", NODE_PORT, "GET", "/no-content"],
  ["node", NODE_PORT, "GET", "/large"],
  ["node", NODE_PORT, "HEAD", "/plain"],
  ["node", NODE_PORT, "GET", "/missing"],
  ["nginx", NGINX_PORT, "GET", "/static.txt"],
  ["nginx", NGINX_PORT, "HEAD", "/static.txt"],
  ["nginx", NGINX_PORT, "GET", "/redirect"],
  ["nginx", NGINX_PORT, "GET", "/no-content"],
  ["nginx", NGINX_PORT, "GET", "/teapot"],
  ["nginx", NGINX_PORT, "GET", "/missing"],
  ["nginx", NGINX_PORT, "GET", "/up/chunked"],
  ["nginx", NGINX_PORT, "GET", "/up/trailers"],
  ["nginx", NGINX_PORT, "GET", "/up/large"],
  ["nginx", NGINX_PORT, "GET", "/up/error"],
  ["haproxy", HAPROXY_PORT, "GET", "/return"],
  ["haproxy", HAPROXY_PORT, "GET", "/deny"],
  ["haproxy", HAPROXY_PORT, "GET", "/down"],
  ["haproxy", HAPROXY_PORT, "GET", "/chunked"],
  ["haproxy", HAPROXY_PORT, "GET", "/trailers"],
  ["haproxy", HAPROXY_PORT, "GET", "/early-hints"],
  ["haproxy", HAPROXY_PORT, "HEAD", "/plain"],
];

/** The raw bytes a server sends for the probe's own request, until it closes. */
async function recordRaw(port: number, config: HttpProbeConfig): Promise<Buffer> {
  const socket = connect({ host: HOST, port });
  await once(socket, "connect");
  socket.write(buildHttpRequest({ host: HOST, port }, config));
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  await once(socket, "close");
  return Buffer.concat(chunks);
}

/** What Node's client reads for the same request: the oracle. */
async function readWithNode(
  port: number,
  method: string,
  path: string,
): Promise<{ status: number; body: Buffer }> {
  const req = httpRequest({ host: HOST, port, method, path, headers: { connection: "close" } });
  req.end();
  const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return { status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES) };
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: HOST, port }, () => resolve(true)).on("error", () => resolve(false));
      s.on("connect", () => s.destroy());
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

const dir = mkdtempSync(join(tmpdir(), "swh-corpus-"));
const children: ChildProcess[] = [];
try {
  upstream.listen(NODE_PORT, HOST);
  await once(upstream, "listening");
  mkdirSync(join(dir, "www"));
  writeFileSync(join(dir, "www", "static.txt"), "static file served by nginx\n");
  writeFileSync(join(dir, "nginx.conf"), NGINX_CONF(dir));
  writeFileSync(join(dir, "haproxy.cfg"), HAPROXY_CONF);
  children.push(spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: "inherit" }));
  children.push(spawn("haproxy", ["-f", join(dir, "haproxy.cfg")], { stdio: "inherit" }));
  await waitForPort(NGINX_PORT);
  await waitForPort(HAPROXY_PORT);
  mkdirSync(OUT, { recursive: true });
  const entries: CorpusEntry[] = [];
  for (const [server, port, method, path] of CASES) {
    const raw = await recordRaw(port, { method, path });
    const oracle = await readWithNode(port, method, path);
    const file = `${server}${path.replaceAll("/", "-")}${method === "HEAD" ? "-head" : ""}.http`;
    writeFileSync(new URL(file, OUT), raw);
    entries.push({
      file,
      server,
      method,
      path,
      status: oracle.status,
      bodyBase64: oracle.body.toString("base64"),
    });
  }
  writeFileSync(new URL("index.json", OUT), `${JSON.stringify(entries, null, 2)}\n`);
  console.log(`recorded ${entries.length} responses into ${OUT.pathname}`);
} finally {
  for (const child of children) child.kill();
  upstream.close();
  upstream.closeAllConnections();
  await Promise.all(
    children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, "exit") : undefined)),
  );
  rmSync(dir, { recursive: true, force: true });
}
