/**
 * Demo and test backends bound to pod addresses inside the network namespace. Each can be switched between
 * healthy and unhealthy the way a real service degrades: the HTTP backend answers 503, the TCP backend stops
 * listening (connections are refused). Both say which pod answered (an `x-pod` header, the SMTP-like greeting), so
 * traffic sent through a Service's ClusterIP can be counted per pod (./traffic.ts).
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";

/** A backend whose health can be switched. */
export interface Backend {
  readonly address: string;
  readonly port: number;
  readonly healthy: boolean;
  setHealthy(healthy: boolean): Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTP server answering 200 "ok" (healthy) or 503 (unhealthy) on every path, with `x-pod: <pod>`; `onRequest`
 * is told the client's address of every request as it arrives (benchmarks time probes and client traffic apart).
 */
export async function startHttpBackend(
  address: string,
  port: number,
  pod = address,
  onRequest?: (from: string) => void,
): Promise<Backend> {
  let healthy = true;
  const server: HttpServer = createHttpServer((req, res) => {
    onRequest?.(req.socket.remoteAddress ?? "");
    res.writeHead(healthy ? 200 : 503, { "content-type": "text/plain", connection: "close", "x-pod": pod });
    res.end(healthy ? "ok\n" : "unavailable\n");
  });
  await listen(server, address, port);
  return {
    address,
    port,
    get healthy() {
      return healthy;
    },
    async setHealthy(value) {
      healthy = value;
    },
    close: () => closeServer(server),
  };
}

/**
 * A TCP server that greets (`220 <pod> ready`) and closes connections while healthy and refuses them (not listening)
 * otherwise.
 */
export async function startTcpBackend(address: string, port: number, pod = address): Promise<Backend> {
  const sockets = new Set<Socket>();
  let server: TcpServer | undefined;
  const open = async () => {
    const s = createTcpServer((socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      // Probers close as soon as they are connected; a reset is normal here, not a crash.
      socket.on("error", () => socket.destroy());
      socket.end(`220 ${pod} ready\r\n`);
    });
    await listen(s, address, port);
    server = s;
  };
  await open();
  return {
    address,
    port,
    get healthy() {
      return server !== undefined;
    },
    async setHealthy(value) {
      if (value && server === undefined) await open();
      if (!value && server !== undefined) {
        const s = server;
        server = undefined;
        for (const socket of sockets) socket.destroy();
        await closeServer(s);
      }
    },
    async close() {
      if (server !== undefined) await closeServer(server);
      server = undefined;
    },
  };
}

function listen(server: HttpServer | TcpServer, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => resolve());
  });
}

function closeServer(server: HttpServer | TcpServer): Promise<void> {
  if ("closeAllConnections" in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
