/**
 * One checker of the peer benchmark (bench/peers.ts) in its own process, so /proc gives its CPU and RSS alone:
 * `@swh/probes` under its `ProbeScheduler` for one kind of target, or the language floor for TCP (`tcp-floor`: a
 * bare `net.connect` and reset per target and period, woken every 10 ms, with no deadline, result or scheduler).
 * Each line read on stdin is answered with one JSON line of the checks completed so far: `{"checks":n,"ok":n}`.
 *
 * Argv: <http|tcp|grpc|tcp-floor> <targets> <port> <periodMs> <timeoutMs>; addresses from `benchAddress`.
 */
import { connect } from "node:net";
import { createInterface } from "node:readline";
import type * as Probes from "@swh/probes";
import { benchAddress } from "./target-servers.ts";

const [kind = "", targetsArg = "1000", portArg = "", periodArg = "1000", timeoutArg = "1000"] =
  process.argv.slice(2);
const count = Number(targetsArg);
const port = Number(portArg);
const periodMs = Number(periodArg);
const timeoutMs = Number(timeoutArg);
const addressKind = kind === "grpc" ? "grpc" : kind === "http" ? "http" : "tcp";
const hosts = Array.from({ length: count }, (_, i) => benchAddress(addressKind, i));

// Another build of this package to compare against in the same run (peers.ts --baseline), else this one.
const { ProbeScheduler, probeGrpc, probeHttp, probeTcp }: typeof Probes = await import(
  process.env.SWH_BENCH_PROBES ?? "@swh/probes"
);

let checks = 0;
let ok = 0;

/** The floor: what Node's socket layer costs for a connect and a close, with one timer for every target. */
function runFloor(): void {
  const tickMs = 10;
  const perTick = (count * tickMs) / periodMs;
  let next = 0;
  let owed = 0;
  setInterval(() => {
    for (owed += perTick; owed >= 1; owed--) {
      const socket = connect({ host: hosts[next] as string, port });
      next = (next + 1) % count;
      socket.once("connect", () => {
        checks++;
        ok++;
        socket.resetAndDestroy(); // as the probe closes (src/internal/close-socket.ts)
      });
      socket.once("error", () => {
        checks++;
      });
    }
  }, tickMs);
}

function probe(host: string, signal: AbortSignal): Promise<Probes.ProbeResult> {
  const target = { host, port };
  if (kind === "http") return probeHttp(target, { path: "/healthz" }, { timeoutMs, signal });
  if (kind === "grpc") return probeGrpc(target, {}, { timeoutMs, signal });
  return probeTcp(target, { timeoutMs, signal });
}

function runProbes(): void {
  const scheduler = new ProbeScheduler<string>({
    maxConcurrent: 256,
    run: (target, signal) => probe(target.probe, signal),
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

if (!["http", "tcp", "grpc", "tcp-floor"].includes(kind) || !(count > 0) || !(port > 0))
  throw new Error(`usage: swh-checker.ts <http|tcp|grpc|tcp-floor> <targets> <port> [periodMs] [timeoutMs]`);
if (kind === "tcp-floor") runFloor();
else runProbes();
createInterface({ input: process.stdin }).on("line", () => {
  process.stdout.write(`${JSON.stringify({ checks, ok })}\n`);
});
process.stdin.on("end", () => process.exit(0));
