/**
 * Benchmark targets, run as a SEPARATE process so the prober's CPU measurement excludes them: `http` HTTP
 * servers, `tcp` TCP listeners and `grpc` gRPC health servers, each on its own 10.244.x.y address (run inside
 * scripts/netns.sh). Prints one JSON line {"ready":true} once every server listens.
 * Argv: <http> <tcp> [node-http|raw] [grpc].
 * The default `raw` HTTP server answers every request with a fixed `200 OK` and closes: on a 2-core machine a
 * node:http server at 1,000 new connections/s becomes the bottleneck and would measure itself, not the prober.
 */
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { encodeHealthCheckResponse } from "../src/internal/grpc-health-codec.ts";
import { indexedField, literalField } from "../src/internal/hpack/encode.ts";
import { encodeFrame, FLAG, FRAME } from "../src/internal/http2-frames.ts";

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

const H2_PREFACE_LENGTH = 24;
const H2_SETTINGS = encodeFrame(FRAME.settings, 0, 0);
const H2_SETTINGS_ACK = encodeFrame(FRAME.settings, FLAG.ack, 0);
/** `:status 200`, `content-type: application/grpc`, SERVING, then the trailers `grpc-status: 0`. */
const H2_RESPONSE = Buffer.concat([
  encodeFrame(
    FRAME.headers,
    FLAG.endHeaders,
    1,
    Buffer.concat([indexedField(8), literalField(31, "application/grpc")]),
  ),
  encodeFrame(FRAME.data, 0, 1, encodeHealthCheckResponse(1)),
  encodeFrame(FRAME.headers, FLAG.endHeaders | FLAG.endStream, 1, literalField("grpc-status", "0")),
]);

/**
 * Minimal gRPC health server (also the gRPC target of bench/peers.ts): answers the first request (stream 1) with SERVING once the client ended it, and
 * nothing else. A node:http2 server per target would measure itself at 1,000 new connections/s, as node:http does.
 */
export function answerGrpcRaw(socket: Socket): void {
  socket.on("error", () => {});
  let buffered = Buffer.alloc(0);
  let at = H2_PREFACE_LENGTH;
  let answered = false;
  socket.write(H2_SETTINGS);
  socket.on("data", (chunk: Buffer) => {
    if (answered) return;
    // The client's preface ends with its SETTINGS, which are acknowledged (a real server applies them first).
    if (buffered.length === 0) socket.write(H2_SETTINGS_ACK);
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= at + 9) {
      const length = buffered.readUIntBE(at, 3);
      const type = buffered[at + 3];
      const flags = buffered[at + 4] as number;
      if (buffered.length < at + 9 + length) return;
      at += 9 + length;
      // DATA with END_STREAM: the request is complete.
      if (type === 0 && (flags & 0x1) !== 0) {
        answered = true;
        socket.write(H2_RESPONSE);
        return;
      }
    }
  });
}

export const HTTP_PORT = 8080;
export const TCP_PORT = 5000;
export const GRPC_PORT = 50051;

/**
 * The address of the i-th target of a kind: 250 per /24, HTTP from 10.244.10.0, TCP from 10.244.100.0, gRPC
 * from 10.244.150.0.
 */
export function benchAddress(kind: "http" | "tcp" | "grpc", i: number): string {
  const base = kind === "http" ? 10 : kind === "tcp" ? 100 : 150;
  return `10.244.${base + Math.floor(i / 250)}.${(i % 250) + 1}`;
}

async function main(): Promise<void> {
  const http = Number(process.argv[2] ?? 1000);
  const tcp = Number(process.argv[3] ?? 1000);
  const impl = process.argv[4] ?? "raw";
  const grpc = Number(process.argv[5] ?? 0);
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
  for (let i = 0; i < grpc; i++) {
    const s = createTcpServer(answerGrpcRaw);
    s.listen(GRPC_PORT, benchAddress("grpc", i), 1024);
    listening.push(once(s, "listening"));
  }
  await Promise.all(listening);
  process.stdout.write(`${JSON.stringify({ ready: true, http, tcp, grpc })}\n`);
}

if (import.meta.main) await main();
