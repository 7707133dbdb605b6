/**
 * Probe load benchmark (issue 5): N HTTP + M TCP targets probed every period for a duration, in phases
 * (HTTP only, TCP only, both; gRPC only when asked) so CPU per 1,000 probes is attributed per kind. Targets run in a child process
 * (bench/target-servers.ts) so process.cpuUsage() here is the prober's alone. Run inside the network namespace:
 *
 *   bash scripts/netns.sh pnpm --filter @swh/probes bench     # builds dist, then each phase in its own process
 *   bash scripts/netns.sh node --max-semi-space-size=4 packages/probes/bench/probe-load.ts --phases both
 *
 * One process per phase, so a phase's peak RSS is its own. `--max-semi-space-size=4` is how the agent image
 * runs Node (ADR 0011): without it V8 grows the young generation to 64 MB under this allocation rate.
 *
 * Options: --http N (1000) --tcp N (1000) --grpc N (1000) --period ms (1000) --duration s (60) --timeout ms (1000)
 *          --max-concurrent N (256) --tick ms (scheduler default) --phases http,tcp,both (also: grpc)
 *          --http-impl swh|undici-client
 *          --tcp-impl swh|bare-socket (bare-socket: `net.connect` + `destroy` under the same scheduler, no deadline
 *          or result handling: what Node's socket layer and the scheduler cost without the probe itself)
 *          --server-impl raw|node-http (how the HTTP targets are served; see target-servers.ts)
 *          --grpc-impl swh|grpc-js (grpc-js: a fresh @grpc/grpc-js client of the generated health service per probe,
 *          the library alternative ADR 0027 measured against)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type * as GrpcJs from "@grpc/grpc-js";
import { type ProbeResult, ProbeScheduler, probeGrpc, probeHttp, probeTcp } from "@swh/probes";
import { benchAddress, GRPC_PORT, HTTP_PORT, TCP_PORT } from "./target-servers.ts";

const { values } = parseArgs({
  options: {
    http: { type: "string", default: "1000" },
    tcp: { type: "string", default: "1000" },
    grpc: { type: "string", default: "1000" },
    period: { type: "string", default: "1000" },
    duration: { type: "string", default: "60" },
    timeout: { type: "string", default: "1000" },
    "max-concurrent": { type: "string", default: "256" },
    tick: { type: "string" },
    phases: { type: "string", default: "http,tcp,both" },
    "http-impl": { type: "string", default: "swh" },
    "tcp-impl": { type: "string", default: "swh" },
    "server-impl": { type: "string", default: "raw" },
    "grpc-impl": { type: "string", default: "swh" },
  },
});
const httpCount = Number(values.http);
const tcpCount = Number(values.tcp);
const periodMs = Number(values.period);
const durationMs = Number(values.duration) * 1000;
const timeoutMs = Number(values.timeout);
const maxConcurrent = Number(values["max-concurrent"]);
const tickMs = values.tick === undefined ? undefined : Number(values.tick);
const httpImpl = values["http-impl"];
const tcpImpl = values["tcp-impl"];
const grpcImpl = values["grpc-impl"];
const phaseNames = (values.phases ?? "").split(",");
// gRPC targets are started only for a run that probes them: they are 1,000 more listeners otherwise idle.
const grpcCount = phaseNames.includes("grpc") ? Number(values.grpc) : 0;

interface Target {
  kind: "http" | "tcp" | "grpc";
  host: string;
  port: number;
}

/** The naive comparison point: a fresh undici Client per probe. */
async function probeHttpWithUndiciClient(t: Target, signal: AbortSignal): Promise<ProbeResult> {
  // Loaded only when compared against: its code would otherwise count in the prober's RSS.
  const { Client } = await import("undici");
  const started = performance.now();
  const client = new Client(`http://${t.host}:${t.port}`, {
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const res = await client.request({
      path: "/healthz",
      method: "GET",
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    await res.body.dump();
    const ok = res.statusCode >= 200 && res.statusCode < 400;
    return ok
      ? { ok, message: String(res.statusCode), durationMs: performance.now() - started }
      : {
          ok,
          reason: "HTTPStatus",
          message: String(res.statusCode),
          durationMs: performance.now() - started,
        };
  } catch (err) {
    return {
      ok: false,
      reason: "Error",
      message: (err as Error).message,
      durationMs: performance.now() - started,
    };
  } finally {
    await client.destroy();
  }
}

/** The floor for a TCP check in Node: connect, close, nothing else (no deadline, no cancellation). */
function connectAndClose(t: Target): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host: t.host, port: t.port });
    socket.once("connect", () => {
      socket.destroy();
      resolve({ ok: true, message: "connected", durationMs: 0 });
    });
    socket.once("error", (err) =>
      resolve({ ok: false, reason: "Error", message: err.message, durationMs: 0 }),
    );
  });
}

/** The library alternative: a fresh @grpc/grpc-js client of the generated health service per probe. */
async function probeGrpcWithGrpcJs(t: Target): Promise<ProbeResult> {
  // Loaded only when compared against: its code would otherwise count in the prober's RSS.
  const grpc = await import("@grpc/grpc-js");
  const { service } = await import("grpc-health-check");
  const Health = grpc.makeGenericClientConstructor(service as GrpcJs.ServiceDefinition, "Health");
  const started = performance.now();
  // A private subchannel pool: every probe opens its own connection, as probeGrpc does.
  const client = new Health(`${t.host}:${t.port}`, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
  }) as unknown as GrpcJs.Client & {
    check(
      req: { service: string },
      opts: GrpcJs.CallOptions,
      cb: (err: GrpcJs.ServiceError | null, res?: { status: string }) => void,
    ): void;
  };
  try {
    return await new Promise<ProbeResult>((resolve) =>
      client.check({ service: "" }, { deadline: Date.now() + timeoutMs }, (err, res) => {
        const durationMs = performance.now() - started;
        if (err) resolve({ ok: false, reason: "GRPCError", message: err.message, durationMs });
        else if (res?.status === "SERVING") resolve({ ok: true, message: "SERVING", durationMs });
        else resolve({ ok: false, reason: "GRPCNotServing", message: String(res?.status), durationMs });
      }),
    );
  } finally {
    client.close();
  }
}

function run(t: Target, signal: AbortSignal): Promise<ProbeResult> {
  if (t.kind === "grpc")
    return grpcImpl === "grpc-js" ? probeGrpcWithGrpcJs(t) : probeGrpc(t, {}, { timeoutMs, signal });
  if (t.kind === "tcp")
    return tcpImpl === "bare-socket" ? connectAndClose(t) : probeTcp(t, { timeoutMs, signal });
  if (httpImpl === "undici-client") return probeHttpWithUndiciClient(t, signal);
  return probeHttp(t, { path: "/healthz" }, { timeoutMs, signal });
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function runPhase(name: string, targets: readonly Target[]): Promise<Record<string, unknown>> {
  const lateness: number[] = [];
  const failures = new Map<string, number>();
  let probes = 0;
  let measuring = false;
  const scheduler = new ProbeScheduler<Target>({
    maxConcurrent,
    ...(tickMs === undefined ? {} : { tickMs }),
    run: (target, signal) => run(target.probe, signal),
    observer: {
      result: (_id, result, timing) => {
        if (!measuring) return;
        probes++;
        lateness.push(timing.startedAt - timing.scheduledAt);
        if (!result.ok) failures.set(result.reason ?? "?", (failures.get(result.reason ?? "?") ?? 0) + 1);
      },
    },
  });
  for (const [i, probe] of targets.entries()) {
    scheduler.upsert({
      id: `${probe.kind}-${i}`,
      initialDelayMs: 0,
      periodMs,
      successThreshold: 1,
      failureThreshold: 3,
      probe,
    });
  }
  // Warm-up: one period so every target has started (first probes are spread over one period) and the JIT settled.
  await new Promise((r) => setTimeout(r, periodMs * 2));
  let peakRss = process.memoryUsage.rss();
  let peakHeapTotal = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeapTotal = Math.max(peakHeapTotal, m.heapTotal);
  }, 1000); // process.memoryUsage() costs ~1 ms; sampling it often would inflate the measured CPU
  measuring = true;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  const cpu = process.cpuUsage(cpuStart);
  const wall = (performance.now() - wallStart) / 1000;
  measuring = false;
  clearInterval(sampler);
  scheduler.stop();
  lateness.sort((a, b) => a - b);
  // With --expose-gc: the live heap after a full collection, to tell retained memory from uncollected garbage.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapAfterGcMB = gc ? Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10 : undefined;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    phase: name,
    targets: targets.length,
    httpImpl: targets.some((t) => t.kind === "http") ? httpImpl : undefined,
    tcpImpl: targets.some((t) => t.kind === "tcp") ? tcpImpl : undefined,
    grpcImpl: targets.some((t) => t.kind === "grpc") ? grpcImpl : undefined,
    probesPerSecond: Math.round((probes / wall) * 10) / 10,
    cpuSecondsPer1000Probes: Math.round((cpuSeconds / probes) * 1000 * 1000) / 1000,
    cpuUserSeconds: cpu.user / 1e6,
    cpuSystemSeconds: cpu.system / 1e6,
    peakRssMB: Math.round((peakRss / 2 ** 20) * 10) / 10,
    peakHeapTotalMB: Math.round((peakHeapTotal / 2 ** 20) * 10) / 10,
    heapAfterGcMB,
    latenessMs: {
      p50: round(quantile(lateness, 0.5)),
      p99: round(quantile(lateness, 0.99)),
      max: round(lateness.at(-1) ?? Number.NaN),
    },
    failures: Object.fromEntries(failures),
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

async function main(): Promise<void> {
  const serverScript = fileURLToPath(new URL("./target-servers.ts", import.meta.url));
  const servers = spawn(
    process.execPath,
    [serverScript, String(httpCount), String(tcpCount), values["server-impl"] ?? "raw", String(grpcCount)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [firstLine] = (await once(servers.stdout, "data")) as [Buffer];
  if (!firstLine.toString().includes('"ready":true'))
    throw new Error(`target servers failed: ${firstLine.toString()}`);
  const http: Target[] = Array.from({ length: httpCount }, (_, i) => ({
    kind: "http",
    host: benchAddress("http", i),
    port: HTTP_PORT,
  }));
  const tcp: Target[] = Array.from({ length: tcpCount }, (_, i) => ({
    kind: "tcp",
    host: benchAddress("tcp", i),
    port: TCP_PORT,
  }));
  const grpc: Target[] = Array.from({ length: grpcCount }, (_, i) => ({
    kind: "grpc",
    host: benchAddress("grpc", i),
    port: GRPC_PORT,
  }));
  const phases = { http, tcp, grpc, both: [...http, ...tcp] } as const;
  try {
    for (const name of phaseNames) {
      const targets = phases[name as keyof typeof phases];
      if (!targets) throw new Error(`unknown phase ${name}`);
      console.log(JSON.stringify(await runPhase(name, targets)));
    }
    console.log(
      JSON.stringify({
        processPeakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
        node: process.version,
      }),
    );
  } finally {
    servers.kill();
  }
}

await main();
