/**
 * Drives blackbox_exporter at the benchmark's rate (bench/peers.ts): every target gets one
 * `/probe?module=<kind>&target=...` per period, started on 10 ms ticks as Prometheus would spread its scrapes, over
 * keep-alive connections to the exporter. A target whose previous probe has not answered is skipped, as the
 * scheduler skips. A check counts when the exporter answered; it passed when the answer says `probe_success 1`.
 * Its own CPU is measured apart from the exporter's by bench/peers.ts. Stdin lines are answered as in
 * bench/swh-checker.ts: `{"checks":n,"ok":n}`.
 *
 * Argv: <http|tcp|grpc> <targets> <port> <periodMs> <timeoutMs> <exporterPort>.
 */
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { benchAddress } from "./target-servers.ts";

const [
  kind = "",
  targetsArg = "1000",
  portArg = "",
  periodArg = "1000",
  timeoutArg = "1000",
  exporterArg = "",
] = process.argv.slice(2);
const count = Number(targetsArg);
const port = Number(portArg);
const periodMs = Number(periodArg);
const timeoutSeconds = Number(timeoutArg) / 1000;
const agent = new Agent({ keepAlive: true, maxSockets: 128 });
const paths = Array.from({ length: count }, (_, i) => {
  const host = benchAddress(kind === "http" ? "http" : kind === "grpc" ? "grpc" : "tcp", i);
  const target = kind === "http" ? `http://${host}:${port}/healthz` : `${host}:${port}`;
  return `/probe?module=${kind}&target=${encodeURIComponent(target)}`;
});
const busy = new Uint8Array(count);

let checks = 0;
let ok = 0;
let errors = 0;

function probe(i: number): void {
  busy[i] = 1;
  const req = request(
    {
      agent,
      host: "127.0.0.1",
      port: Number(exporterArg),
      path: paths[i],
      // What Prometheus sends; the exporter bounds the probe by it (minus its offset) and by the module's timeout.
      headers: { "X-Prometheus-Scrape-Timeout-Seconds": String(timeoutSeconds + 0.5) },
    },
    (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        busy[i] = 0;
        checks++;
        if (/^probe_success 1$/m.test(body)) ok++;
      });
    },
  );
  req.on("error", () => {
    busy[i] = 0;
    errors++;
  });
  req.end();
}

if (!["http", "tcp", "grpc"].includes(kind) || !(count > 0) || !(Number(exporterArg) > 0))
  throw new Error(
    "usage: blackbox-driver.ts <http|tcp|grpc> <targets> <port> <periodMs> <timeoutMs> <exporterPort>",
  );
const tickMs = 10;
const perMs = count / periodMs;
let next = 0;
let owed = 0;
// Owed by the time elapsed, so a late timer on a loaded machine does not lower the rate.
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  owed += (now - last) * perMs;
  last = now;
  for (; owed >= 1; owed--) {
    if (busy[next] === 0) probe(next);
    next = (next + 1) % count;
  }
}, tickMs);
createInterface({ input: process.stdin }).on("line", () => {
  process.stdout.write(`${JSON.stringify({ checks, ok, errors })}\n`);
});
process.stdin.on("end", () => process.exit(0));
