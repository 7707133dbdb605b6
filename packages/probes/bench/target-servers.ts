/**
 * Benchmark targets, run as a SEPARATE process so the prober's CPU measurement excludes them: `http` HTTP
 * servers and `tcp` TCP listeners, each on its own 10.244.x.y address (run inside scripts/netns.sh). Prints
 * one JSON line {"ready":true} once every server listens. Argv: <http> <tcp> [node-http|raw].
 * The default `raw` HTTP server answers every request with a fixed `200 OK` and closes: on a 2-core machine a
 * node:http server at 1,000 new connections/s becomes the bottleneck and would measure itself, not the prober.
 */
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";

const RESPONSE = Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");

/** Minimal HTTP/1.1 server behaviour: wait for the end of the request head, answer 200, close. */
function answerRaw(socket: Socket): void {
  socket.on("error", () => {});
  let head = "";
  socket.on("data", (chunk: Buffer) => {
    head += chunk.toString("latin1");
    if (head.includes("\r\n\r\n")) socket.end(RESPONSE);
  });
}

export const HTTP_PORT = 8080;
export const TCP_PORT = 5000;

/** The address of the i-th target of a kind: 250 per /24, HTTP from 10.244.10.0, TCP from 10.244.100.0. */
export function benchAddress(kind: "http" | "tcp", i: number): string {
  const base = kind === "http" ? 10 : 100;
  return `10.244.${base + Math.floor(i / 250)}.${(i % 250) + 1}`;
}

async function main(): Promise<void> {
  const http = Number(process.argv[2] ?? 1000);
  const tcp = Number(process.argv[3] ?? 1000);
  const impl = process.argv[4] ?? "raw";
  const listening: Promise<unknown>[] = [];
  const httpServer = () => {
    const s = createHttpServer((req, res) => {
      res.statusCode = req.url === "/healthz" ? 200 : 404;
      res.end("ok");
    });
    s.on("clientError", (_e, socket) => socket.destroy());
    return s;
  };
  for (let i = 0; i < http; i++) {
    const s = impl === "node-http" ? httpServer() : createTcpServer(answerRaw);
    s.listen(HTTP_PORT, benchAddress("http", i), 1024);
    listening.push(once(s, "listening"));
  }
  for (let i = 0; i < tcp; i++) {
    const s = createTcpServer((socket) => {
      socket.on("error", () => {});
      socket.resume();
    });
    s.listen(TCP_PORT, benchAddress("tcp", i), 1024);
    listening.push(once(s, "listening"));
  }
  await Promise.all(listening);
  process.stdout.write(`${JSON.stringify({ ready: true, http, tcp })}\n`);
}

if (import.meta.main) await main();
