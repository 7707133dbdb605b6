/** Real listeners for probe tests: HTTP(S) servers and raw TCP servers with scripted behaviour. */
import { once } from "node:events";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type Server as NetServer, type Socket } from "node:net";
import { afterEach } from "vitest";

const opened: (Server | NetServer)[] = [];
const sockets = new Set<Socket>();

afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(opened.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function track<S extends Server | NetServer>(server: S): S {
  opened.push(server);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  return server;
}

async function listen(server: Server | NetServer, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Requests an HTTP server saw, for asserting what the probe sent. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  remotePort: number;
}

/** Starts an HTTP (or HTTPS when `tls` is given) server on `host`; returns its port, requests and connection count. */
export async function startHttpServer(
  host: string,
  handler: RequestListener,
  tls?: { cert: string; key: string; requestCert?: boolean; ca?: string },
): Promise<{
  port: number;
  requests: SeenRequest[];
  connections: () => number;
  servernames: (string | false)[];
}> {
  const requests: SeenRequest[] = [];
  const servernames: (string | false)[] = [];
  let connections = 0;
  const listener: RequestListener = (req, res) => {
    requests.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      remotePort: req.socket.remotePort ?? 0,
    });
    handler(req, res);
  };
  const server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  track(server);
  server.on(tls ? "secureConnection" : "connection", (socket: Socket & { servername?: string | false }) => {
    connections++;
    if (tls) servernames.push(socket.servername ?? false);
  });
  const port = await listen(server, host);
  return { port, requests, connections: () => connections, servernames };
}

/** Starts a raw TCP server on `host` whose `onConnection` scripts each accepted socket. */
export async function startTcpServer(
  host: string,
  onConnection: (socket: Socket) => void = () => {},
): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const server = track(
    createTcpServer((socket) => {
      accepted++;
      onConnection(socket);
    }),
  );
  const port = await listen(server, host);
  return { port, accepted: () => accepted };
}

/** A port on `host` with nothing listening (bound once, then released). */
export async function closedPort(host: string): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server, host);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Writes `chunk` to `socket` every `everyMs` until the socket closes; returns a stop function. */
export function trickle(socket: Socket, chunk: string | Buffer, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (socket.destroyed) clearInterval(timer);
    else socket.write(chunk);
  }, everyMs);
  socket.on("close", () => clearInterval(timer));
  return () => clearInterval(timer);
}

/** Writes `chunk` over and over until the socket closes (an endless stream), yielding to the event loop between writes. */
export function flood(socket: Socket, chunk: Buffer): void {
  const pump = () => {
    if (socket.destroyed) return;
    if (socket.write(chunk)) setImmediate(pump);
    else socket.once("drain", pump);
  };
  pump();
}
