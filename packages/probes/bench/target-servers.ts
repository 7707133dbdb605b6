/**
 * Benchmark targets, run as a SEPARATE process so the prober's CPU measurement excludes them: `http` HTTP
 * servers (GET /healthz → 200 "ok") and `tcp` TCP listeners, each on its own 10.244.x.y address (run inside
 * scripts/netns.sh). Prints one JSON line {"ready":true} once every server listens. Argv: <http> <tcp>.
 */
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer } from "node:net";

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
  const listening: Promise<unknown>[] = [];
  const httpServer = () =>
    createHttpServer((req, res) => {
      res.statusCode = req.url === "/healthz" ? 200 : 404;
      res.end("ok");
    });
  for (let i = 0; i < http; i++) {
    const s = httpServer();
    s.on("clientError", (_e, socket) => socket.destroy());
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
