/**
 * One checker of the peer benchmark (bench/peers.ts) in its own process, so /proc gives its CPU and RSS alone:
 * `@swh/probes` under its `ProbeScheduler` for one kind of target, or a floor: for TCP (`tcp-floor`) a bare
 * `net.connect` and reset per target and period, woken every 10 ms, with no deadline, result or scheduler; for HTTP
 * (`http-floor`) the same loop writing one prepared request (the bytes `probeHttp` sends) and resetting once the
 * answer's head has arrived, judging only its status line: no parser, no bounds, no message; for gRPC
 * (`grpc-floor`) the same loop writing one prepared HTTP/2 exchange (preface, SETTINGS, the Check call's HEADERS
 * and DATA) and resetting at the first DATA frame of the answer: what a hand-written HTTP/2 client could cost at
 * best, since it decodes no header (no HPACK) and judges nothing but the message bytes.
 * With `SWH_BENCH_NATIVE` (an addon built from bench/native/connections.c, peers.ts `native-floor`), the TCP and HTTP
 * floors run on native connections instead of `net.Socket`, and the `http` and `tcp` probes too (`runNativeProbes`).
 * Each line read on stdin is answered with one JSON line of the checks completed so far: `{"checks":n,"ok":n}`.
 *
 * Argv: <http|tcp|grpc|tcp-floor|http-floor|grpc-floor> <targets> <port> <periodMs> <timeoutMs>; addresses from
 * `benchAddress`.
 */
import { createRequire } from "node:module";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import type * as Probes from "@swh/probes";
import { decodeHealthCheckResponse, encodeHealthCheckRequest } from "../src/internal/grpc-health-codec.ts";
import { indexedField, literalField } from "../src/internal/hpack/encode.ts";
import { encodeFrame, FLAG, FRAME } from "../src/internal/http2-frames.ts";
import { benchAddress } from "./target-servers.ts";

const [kind = "", targetsArg = "1000", portArg = "", periodArg = "1000", timeoutArg = "1000"] =
  process.argv.slice(2);
const count = Number(targetsArg);
const port = Number(portArg);
const periodMs = Number(periodArg);
const timeoutMs = Number(timeoutArg);
const addressKind = kind.startsWith("grpc") ? "grpc" : kind.startsWith("http") ? "http" : "tcp";
const hosts = Array.from({ length: count }, (_, i) => benchAddress(addressKind, i));

// Another build of this package to compare against in the same run (peers.ts --baseline), else this one.
const { buildHttpRequest, ProbeScheduler, probeGrpc, probeHttp, probeTcp }: typeof Probes = await import(
  process.env.SWH_BENCH_PROBES ?? "@swh/probes"
);

let checks = 0;
let ok = 0;

/** The whole client side of a Check call on a fresh connection, for `authority`. */
function grpcExchange(authority: string): Buffer {
  const headers = Buffer.concat([
    indexedField(3), // :method POST
    indexedField(6), // :scheme http
    literalField(4, "/grpc.health.v1.Health/Check"), // :path
    literalField(1, authority), // :authority
    literalField(31, "application/grpc"), // content-type
    literalField("te", "trailers"),
  ]);
  return Buffer.concat([
    Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    encodeFrame(FRAME.settings, 0, 0), // SETTINGS
    encodeFrame(FRAME.headers, FLAG.endHeaders, 1, headers),
    encodeFrame(FRAME.data, FLAG.endStream, 1, encodeHealthCheckRequest("")),
  ]);
}

/** The request `probeHttp` writes for `GET /healthz` on `host` (src/probe-http.ts). */
function httpRequest(host: string): Buffer {
  return Buffer.from(
    `GET /healthz HTTP/1.1\r\nHost: ${host}:${port}\r\nUser-Agent: swh-probe/1\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    "latin1",
  );
}

/** The HTTP floor's read side: undefined until the head is complete, then whether the status is 200. */
function readHttpAnswer(buffered: Buffer): boolean | undefined {
  if (buffered.indexOf("\r\n\r\n") < 0) return undefined;
  return buffered.toString("latin1", 9, 12) === "200";
}

/** The gRPC floor's read side: the first DATA frame on stream 1 holds the answer; true when it says SERVING. */
function readGrpcAnswer(buffered: Buffer): boolean | undefined {
  for (let at = 0; at + 9 <= buffered.length; ) {
    const length = buffered.readUIntBE(at, 3);
    if (at + 9 + length > buffered.length) return undefined;
    if (buffered[at + 3] === 0 && buffered.readUInt32BE(at + 5) === 1) {
      const decoded = decodeHealthCheckResponse(buffered.subarray(at + 9, at + 9 + length));
      return decoded.ok && decoded.status === 1;
    }
    at += 9 + length;
  }
  return undefined;
}

/** The connections of bench/native/connections.c (its file comment is the API). */
interface NativeConnections {
  init(onEvent: (slot: number, event: number, value: Buffer | number) => void): void;
  open(slot: number, ip: string, port: number, request?: Buffer): number;
  close(slot: number): void;
}
const NATIVE_EVENT = { connected: 1, data: 2, end: 3, error: 4 } as const;

/**
 * Calls `start(i)` for the targets in turn at `count / periodMs` per ms, woken every 10 ms; owed by the time
 * elapsed, so a late timer on a loaded machine does not lower the rate.
 */
function pace(start: (target: number) => void): void {
  const perMs = count / periodMs;
  let next = 0;
  let owed = 0;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    owed += (now - last) * perMs;
    last = now;
    for (; owed >= 1; owed--) {
      start(next);
      next = (next + 1) % count;
    }
  }, 10);
}

/** A floor: what Node's socket layer costs for a connect, the exchange, and a reset, with one timer for all. */
function runFloor(): void {
  const exchanges =
    kind === "grpc-floor"
      ? hosts.map((h) => grpcExchange(`${h}:${port}`))
      : kind === "http-floor"
        ? hosts.map(httpRequest)
        : undefined;
  const readAnswer = kind === "grpc-floor" ? readGrpcAnswer : readHttpAnswer;
  pace((next) => {
    const socket = connect({ host: hosts[next] as string, port });
    const exchange = exchanges?.[next];
    socket.once("connect", () => {
      if (exchange) return void socket.write(exchange);
      checks++;
      ok++;
      socket.resetAndDestroy(); // as the probe closes (src/internal/close-socket.ts)
    });
    if (exchange) {
      let buffered: Buffer = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const serving = readAnswer(buffered);
        if (serving === undefined) return;
        checks++;
        if (serving) ok++;
        socket.resetAndDestroy();
      });
    }
    socket.once("error", () => {
      checks++;
    });
  });
}

/**
 * The native floor (peers.ts `native-floor`): the same loop and exchange as the TCP and HTTP floors, on the
 * connections of bench/native/connections.c (libuv on Node's loop, no `net.Socket`; ADR 0044).
 */
function runNativeFloor(addonPath: string): void {
  if (kind === "grpc-floor") throw new Error("the native floor runs the TCP and HTTP floors only");
  const native: NativeConnections = createRequire(import.meta.url)(addonPath);
  const exchanges = kind === "http-floor" ? hosts.map(httpRequest) : undefined;
  const buffered = new Map<number, Buffer>();
  const free: number[] = [];
  let slots = 0;
  const done = (slot: number, passed: boolean) => {
    checks++;
    if (passed) ok++;
    native.close(slot);
    buffered.delete(slot);
    free.push(slot);
  };
  native.init((slot, event, value) => {
    if (event === NATIVE_EVENT.connected) return void (exchanges ? undefined : done(slot, true));
    if (event !== NATIVE_EVENT.data || typeof value === "number") return done(slot, false);
    const before = buffered.get(slot);
    const all = before ? Buffer.concat([before, value]) : value;
    const serving = readHttpAnswer(all);
    if (serving === undefined) buffered.set(slot, all);
    else done(slot, serving);
  });
  pace((next) => {
    const slot = free.pop() ?? slots++;
    if (native.open(slot, hosts[next] as string, port, exchanges?.[next]) === 0) return;
    checks++;
    free.push(slot);
  });
}

/** Internals of this package's build (`dist/`), for the native prototype below; types from the sources. */
type Attempts = typeof import("../src/internal/attempt.ts");
type Readers = typeof import("../src/internal/http-response-reader.ts");
type Addresses = typeof import("../src/internal/check-address.ts");
async function buildInternal<T>(path: string): Promise<T> {
  return (await import(new URL(`../dist/internal/${path}`, import.meta.url).href)) as T;
}

/**
 * The prototype of ADR 0044's native route (peers.ts `native-swh`): the probe as `probeTcp`/`probeHttp` run it, per
 * check — address check, request built, deadline and cancellation (`runAttempt`), the bounded response reader, the
 * status judged and worded — under the `ProbeScheduler`, with the connection on bench/native/connections.c
 * instead of `net.Socket`. What the probe would cost on a native transport, measured instead of estimated.
 */
async function runNativeProbes(addonPath: string): Promise<void> {
  const native: NativeConnections = createRequire(import.meta.url)(addonPath);
  const { runAttempt } = await buildInternal<Attempts>("attempt.js");
  const { ResponseReader } = await buildInternal<Readers>("http-response-reader.js");
  const { checkAddress, formatAddress } = await buildInternal<Addresses>("check-address.js");
  const handlers: Array<((event: number, value: Buffer | number) => void) | undefined> = [];
  const free: number[] = [];
  let slots = 0;
  native.init((slot, event, value) => handlers[slot]?.(event, value));
  const http = kind === "http";
  const config = { path: "/healthz" };
  const failure = (code: number) =>
    ({
      message: `connection failed (libuv ${code})`,
      reason: code === -111 ? "ConnectionRefused" : "Error",
    }) as const;
  const probeNative = (host: string, signal: AbortSignal) => {
    const target = { host, port };
    checkAddress(target);
    const request = http ? Buffer.from(buildHttpRequest(target, config), "latin1") : undefined;
    const where = formatAddress(target);
    return runAttempt({ timeoutMs, signal }, (attempt) => {
      const slot = free.pop() ?? slots++;
      const reader = http
        ? new ResponseReader({ method: "GET", maxHeadBytes: 16 * 1024, maxBodyBytes: 4 * 1024 })
        : undefined;
      const settle = (outcome: ReturnType<InstanceType<Readers["ResponseReader"]>["push"]>) => {
        if (outcome.kind === "more") return;
        if (outcome.kind === "error") return attempt.finish(false, outcome.message, "ProtocolError");
        const { status, reason } = outcome.head;
        const text = `HTTP ${status}${reason ? ` ${reason}` : ""}`;
        if (status >= 200 && status <= 399) attempt.finish(true, text);
        else attempt.finish(false, `${text} is not an accepted status`, "HTTPStatus");
      };
      attempt.phase("connecting");
      handlers[slot] = (event, value) => {
        if (attempt.done) return;
        if (event === NATIVE_EVENT.connected) {
          attempt.reached("connect");
          if (reader === undefined) attempt.finish(true, `connected to ${where}`);
          else attempt.phase("waiting for response headers");
        } else if (event === NATIVE_EVENT.data && reader !== undefined && typeof value !== "number") {
          attempt.reached("firstByte");
          settle(reader.push(value));
        } else if (event === NATIVE_EVENT.end && reader !== undefined) settle(reader.end());
        else {
          const { message, reason } = failure(typeof value === "number" ? value : 0);
          attempt.finish(false, message, reason);
        }
      };
      const opened = native.open(slot, host, port, request);
      if (opened !== 0) {
        const { message, reason } = failure(opened);
        attempt.finish(false, message, reason);
      }
      return () => {
        native.close(slot);
        handlers[slot] = undefined;
        free.push(slot);
      };
    });
  };
  schedule(probeNative);
}

function probe(host: string, signal: AbortSignal): Promise<Probes.ProbeResult> {
  const target = { host, port };
  if (kind === "http") return probeHttp(target, { path: "/healthz" }, { timeoutMs, signal });
  if (kind === "grpc") return probeGrpc(target, {}, { timeoutMs, signal });
  return probeTcp(target, { timeoutMs, signal });
}

/** Runs `check` for every target under the `ProbeScheduler`, as the agent does, counting the results. */
function schedule(check: (host: string, signal: AbortSignal) => Promise<Probes.ProbeResult>): void {
  const scheduler = new ProbeScheduler<string>({
    maxConcurrent: 256,
    run: (target, signal) => check(target.probe, signal),
    observer: {
      result: (_id, result) => {
        checks++;
        if (result.ok) ok++;
      },
    },
  });
  for (const [i, host] of hosts.entries())
    scheduler.upsert({
      id: String(i),
      initialDelayMs: 0,
      periodMs,
      successThreshold: 1,
      failureThreshold: 3,
      probe: host,
    });
}

if (
  !["http", "tcp", "grpc", "tcp-floor", "http-floor", "grpc-floor"].includes(kind) ||
  !(count > 0) ||
  !(port > 0)
)
  throw new Error(
    `usage: swh-checker.ts <http|tcp|grpc|tcp-floor|http-floor|grpc-floor> <targets> <port> [periodMs] [timeoutMs]`,
  );
const nativeAddon = process.env.SWH_BENCH_NATIVE;
if (kind.endsWith("-floor") && nativeAddon) runNativeFloor(nativeAddon);
else if (kind.endsWith("-floor")) runFloor();
else if (nativeAddon) await runNativeProbes(nativeAddon);
else schedule(probe);
createInterface({ input: process.stdin }).on("line", () => {
  process.stdout.write(`${JSON.stringify({ checks, ok })}\n`);
});
process.stdin.on("end", () => process.exit(0));
