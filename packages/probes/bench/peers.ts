/**
 * The probe benchmark beside its peers (issue 31): the same targets, on the same schedule, in one run, checked by
 * HAProxy (`option httpchk` / plain `check`), blackbox_exporter (driven at the same rate by bench/blackbox-driver.ts),
 * `@swh/probes` (bench/swh-checker.ts) and Node's floors (bare loops of connect and reset, for HTTP and gRPC with a
 * prepared request between them: bench/swh-checker.ts), and a native floor for HTTP and TCP (`native-floor`: the same
 * loop on libuv connections of bench/native/connections.c, compiled here with gcc; not in the default checkers,
 * MISSING without gcc), and `native-swh`, the probe's own per-check work under its scheduler on those connections
 * (the prototype of ADR 0044's native transport). One checker runs at a time, each in its own process, and
 * its CPU is read from /proc/<pid>/stat (utime + stime, all threads) over the measured window, its RSS from
 * /proc/<pid>/status; the blackbox driver's CPU is measured and printed apart from the
 * exporter's and is not in the exporter's figure. Checks are counted by the server for HTTP and TCP (nginx's
 * `stub_status`: requests, accepted connections) and by the checker for gRPC, so a checker is charged for checks it
 * completed, not for checks it meant to do. Run inside the network namespace, after
 * scripts/install-bench-peers.sh (a missing peer is printed as MISSING and makes the run fail):
 *
 *   pnpm --filter @swh/probes bench:peers [-- --duration 30s --targets 1000 --kinds http,tcp,grpc --rounds 1]
 *
 * nginx serves HTTP and TCP on every 10.244.x.y (one listener per port, a port per checker so TIME_WAIT is
 * attributed), a raw Node HTTP/2 server (target-servers.ts) answers gRPC health; neither is counted as a checker.
 * This file is long because it holds the whole experiment: the peers' configurations, the runs and the table.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { formatUsage, parseDuration, parseFlags } from "@swh/flags";
import { answerGrpcRaw, benchAddress } from "./target-servers.ts";

const FLAGS = {
  targets: { value: "N", default: "1000", help: "targets per kind" },
  period: { value: "DURATION", default: "1s", help: "check period of every target" },
  timeout: { value: "DURATION", default: "1s", help: "deadline of one check" },
  duration: { value: "DURATION", default: "30s", help: "measured window per checker" },
  warmup: {
    value: "DURATION",
    default: "3s",
    help: "time before the window (checks spread over one period)",
  },
  kinds: { value: "LIST", default: "http,tcp,grpc", help: "kinds of check, in order" },
  checkers: { value: "LIST", default: "haproxy,blackbox,swh,floor", help: "checkers, run one after another" },
  rounds: { value: "N", default: "1", help: "times to run every checker, interleaved" },
  baseline: {
    value: "DIR",
    default: "",
    help: "another build's dist/ of @swh/probes, run as checker swh-base beside swh (before/after in one run)",
  },
  "node-options": {
    value: "FLAGS",
    default: "--optimize-for-size",
    help: "how Node runs the swh checkers and floors (default: as the agent image runs it)",
  },
  "cpu-prof-dir": { value: "DIR", default: "", help: "write a V8 CPU profile of each swh/floor run there" },
} as const;
/** Set in the child that serves gRPC health (see `startGrpcTargets`): it takes no flags. */
const grpcTargetPorts = process.env.SWH_BENCH_GRPC_PORTS;
const parsed = parseFlags(grpcTargetPorts === undefined ? process.argv.slice(2) : [], FLAGS);
if (!parsed.ok) throw new Error(parsed.error);
if (!("values" in parsed)) {
  process.stdout.write(formatUsage("usage: node bench/peers.ts [flags]  (inside scripts/netns.sh)", FLAGS));
  process.exit(0);
}
const flag = (name: keyof typeof FLAGS) => parsed.values.get(name) ?? FLAGS[name].default;
const ms = (name: keyof typeof FLAGS) => {
  const value = parseDuration(flag(name));
  if (value === undefined) throw new Error(`--${name}: not a duration: ${flag(name)}`);
  return value;
};
const targets = Number(flag("targets"));
const periodMs = ms("period");
const timeoutMs = ms("timeout");
const durationMs = ms("duration");
const warmupMs = ms("warmup");
const kinds = flag("kinds").split(",") as Kind[];
const checkers = flag("checkers").split(",") as Checker[];
const rounds = Number(flag("rounds"));
if (checkers.includes("swh-base") && !flag("baseline"))
  throw new Error("checker swh-base needs --baseline DIR");

type Kind = "http" | "tcp" | "grpc";
type Checker = "haproxy" | "blackbox" | "swh" | "floor" | "swh-base" | "native-floor" | "native-swh";
const CHECKER_INDEX: Record<Checker, number> = {
  haproxy: 0,
  blackbox: 1,
  swh: 2,
  floor: 3,
  "swh-base": 4,
  "native-floor": 5,
  "native-swh": 6,
};
const BASE_PORT: Record<Kind, number> = { http: 8081, tcp: 5001, grpc: 50051 };
const portOf = (kind: Kind, checker: Checker) => BASE_PORT[kind] + CHECKER_INDEX[checker];
/** Which checker can do which kind; anything else is "not applicable", printed as such. */
const APPLIES: Record<Checker, readonly Kind[]> = {
  haproxy: ["http", "tcp"],
  blackbox: ["http", "tcp", "grpc"],
  swh: ["http", "tcp", "grpc"],
  floor: ["http", "tcp", "grpc"],
  "swh-base": ["http", "tcp", "grpc"],
  "native-floor": ["http", "tcp"],
  "native-swh": ["http", "tcp"],
};
const COMMANDS: Partial<Record<Checker, string>> = {
  haproxy: "haproxy",
  blackbox: "prometheus-blackbox-exporter",
};
const NGINX_STATUS_PORT = 8099;
const EXPORTER_PORT = 9115;
const here = fileURLToPath(new URL(".", import.meta.url));
const workDir = join(tmpdir(), `swh-bench-peers-${process.pid}`);
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

function installed(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds of a process (every thread, and children it has waited for) from /proc/<pid>/stat. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return { user: (utime + cutime) / CLOCK_TICKS, system: (stime + cstime) / CLOCK_TICKS };
}
const total = (cpu: { user: number; system: number }) => cpu.user + cpu.system;

/** VmRSS and VmHWM of a process, in MB. */
function memoryMB(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** Sockets in TIME_WAIT to or from a port, either side (the whole namespace is this benchmark's). */
function timeWaitCount(port: number): number {
  const filter = `( sport = :${port} or dport = :${port} )`;
  return Number(execFileSync("sh", ["-c", `ss -Htan state time-wait '${filter}' | wc -l`]).toString());
}

/** Connections opened by anyone in the namespace (/proc/net/snmp `Tcp: ActiveOpens`): one per check here. */
function activeOpens(): number {
  const lines = readFileSync("/proc/net/snmp", "utf8")
    .split("\n")
    .filter((l) => l.startsWith("Tcp:"));
  const [names, values] = lines.map((l) => l.split(/\s+/));
  return Number(values?.[names?.indexOf("ActiveOpens") ?? -1]);
}

async function nginxCounters(): Promise<{ accepts: number; requests: number }> {
  const res = await fetch(`http://127.0.0.1:${NGINX_STATUS_PORT}/`);
  const text = await res.text();
  // "Active connections: 1 \nserver accepts handled requests\n 12 12 34 \n..."
  const [accepts, , requests] = (/^\s*(\d+)\s+(\d+)\s+(\d+)\s*$/m.exec(text) ?? []).slice(1).map(Number);
  return { accepts: accepts ?? Number.NaN, requests: requests ?? Number.NaN };
}

function startNginx(): ChildProcess {
  const dir = join(workDir, "nginx");
  mkdirSync(dir, { recursive: true });
  const listens = (kind: Kind) =>
    checkers.map((c) => `    listen ${portOf(kind, c)} reuseport backlog=4096;`).join("\n");
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log stderr error;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir};
  uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
${listens("http")}
${listens("tcp")}
    location = /healthz { return 200 "ok\\n"; }
  }
  server { listen 127.0.0.1:${NGINX_STATUS_PORT}; location / { stub_status; } }
}
`;
  writeFileSync(join(dir, "nginx.conf"), conf);
  return spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", "stderr"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
}

/** gRPC health targets, in their own process so their CPU is nobody's: every address, a port per checker. */
async function startGrpcTargets(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, SWH_BENCH_GRPC_PORTS: checkers.map((c) => portOf("grpc", c)).join(",") },
  });
  await once(child.stdout as NodeJS.ReadableStream, "data");
  return child;
}

function haproxyConfig(kind: Kind, port: number): string {
  const dir = join(workDir, "haproxy");
  mkdirSync(dir, { recursive: true });
  const servers = Array.from(
    { length: targets },
    (_, i) => `  server t${i} ${benchAddress(kind === "http" ? "http" : "tcp", i)}:${port}`,
  );
  const conf = `global
  maxconn 4096
  stats socket ${dir}/stats.sock mode 600 level admin
defaults
  mode ${kind === "http" ? "http" : "tcp"}
  timeout connect ${timeoutMs}ms
  timeout check ${timeoutMs}ms
  timeout client 10s
  timeout server 10s
backend targets
${kind === "http" ? "  option httpchk GET /healthz\n" : ""}  default-server check inter ${periodMs}ms
${servers.join("\n")}
`;
  const path = join(dir, "haproxy.cfg");
  writeFileSync(path, conf);
  return path;
}

function blackboxConfig(): string {
  const path = join(workDir, "blackbox.yml");
  const timeout = `${timeoutMs}ms`;
  writeFileSync(
    path,
    `modules:
  http:
    prober: http
    timeout: ${timeout}
    http: { preferred_ip_protocol: ip4, ip_protocol_fallback: false }
  tcp:
    prober: tcp
    timeout: ${timeout}
    tcp: { preferred_ip_protocol: ip4, ip_protocol_fallback: false }
  grpc:
    prober: grpc
    timeout: ${timeout}
    grpc: { tls: false, preferred_ip_protocol: ip4, ip_protocol_fallback: false }
`,
  );
  return path;
}

/** HAProxy's own view from `show stat`: servers UP, and failed checks so far (`chkfail`). */
async function haproxyStat(): Promise<{ up: number; failedChecks: number }> {
  const socket = connect(join(workDir, "haproxy", "stats.sock"));
  await once(socket, "connect");
  socket.end("show stat\n");
  let text = "";
  for await (const chunk of socket) text += String(chunk);
  const rows = text.split("\n").filter((line) => line.startsWith("targets,t"));
  const up = rows.filter((line) => line.split(",")[17] === "UP").length;
  const failedChecks = rows.reduce((sum, line) => sum + Number(line.split(",")[21] ?? 0), 0);
  return { up, failedChecks };
}

/** A process whose stdin lines are answered with its counters (swh-checker.ts, blackbox-driver.ts). */
function counterOf(child: ChildProcess): () => Promise<{ checks: number; ok: number }> {
  const lines = child.stdout as NodeJS.ReadableStream;
  return async () => {
    child.stdin?.write("count\n");
    const [data] = (await once(lines, "data")) as [Buffer];
    return JSON.parse(data.toString().trim().split("\n").at(-1) ?? "{}");
  };
}

interface Run {
  kind: Kind;
  checker: Checker;
  round: number;
  missing?: string;
  checks?: number;
  checkerCounted?: { checks: number; ok: number };
  checksPerSecond?: number;
  cpuSeconds?: number;
  cpuPer1000?: number;
  /** Of the CPU time, the share spent in the kernel (stime). */
  systemShare?: number;
  driverCpuPer1000?: number;
  peakRssMB?: number;
  driverPeakRssMB?: number;
  timeWait?: number;
  connectionsOpened?: number;
  haproxy?: { serversUp: number; failedChecks: number };
  load: string;
}

async function waitForExporter(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${EXPORTER_PORT}/`);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error("blackbox_exporter did not start");
}

/**
 * The addon of bench/native/connections.c, compiled against the headers of the Node running this once per run,
 * or why it cannot be (no C compiler).
 */
let nativeFloor: { addon: string } | { missing: string } | undefined;
function buildNativeFloor(): { addon: string } | { missing: string } {
  nativeFloor ??= compileNativeFloor();
  return nativeFloor;
}
function compileNativeFloor(): { addon: string } | { missing: string } {
  if (!installed("gcc")) return { missing: "gcc not installed (apt-get install gcc)" };
  const addon = join(workDir, "connections.node");
  const headers = resolve(process.execPath, "../../include/node");
  const source = join(here, "native/connections.c");
  const flags = ["-O2", "-fPIC", "-shared", "-Wall", "-Werror", `-I${headers}`];
  execFileSync("gcc", [...flags, "-o", addon, source], { stdio: "inherit" });
  return { addon };
}

async function measure(kind: Kind, checker: Checker, round: number): Promise<Run> {
  const load = loadAverage();
  const native = checker.startsWith("native-") ? buildNativeFloor() : undefined;
  if (native && "missing" in native) return { kind, checker, round, load, missing: native.missing };
  const command = COMMANDS[checker];
  if (command && !installed(command))
    return {
      kind,
      checker,
      round,
      load,
      missing: `${command} not installed (scripts/install-bench-peers.sh)`,
    };
  const port = portOf(kind, checker);
  const common = [String(targets), String(port), String(periodMs), String(timeoutMs)];
  const measured: ChildProcess[] = [];
  let driver: ChildProcess | undefined;
  let count: (() => Promise<{ checks: number; ok: number }>) | undefined;
  if (checker === "haproxy") {
    measured.push(spawn("haproxy", ["-db", "-f", haproxyConfig(kind, port)], { stdio: "inherit" }));
  } else if (checker === "blackbox") {
    const exporter = spawn(
      "prometheus-blackbox-exporter",
      [
        `--config.file=${blackboxConfig()}`,
        `--web.listen-address=127.0.0.1:${EXPORTER_PORT}`,
        "--log.level=error",
      ],
      { stdio: "inherit" },
    );
    measured.push(exporter);
    await waitForExporter();
    driver = spawn(
      process.execPath,
      [join(here, "blackbox-driver.ts"), kind, ...common, String(EXPORTER_PORT)],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    count = counterOf(driver);
  } else {
    // By default as the agent image runs Node (deploy/images/agent.Dockerfile).
    const child = spawn(
      process.execPath,
      [
        ...flag("node-options").split(" ").filter(Boolean),
        ...(flag("cpu-prof-dir") ? ["--cpu-prof", `--cpu-prof-dir=${flag("cpu-prof-dir")}`] : []),
        join(here, "swh-checker.ts"),
        checker === "floor" || checker === "native-floor" ? `${kind}-floor` : kind,
        ...common,
      ],
      {
        stdio: ["pipe", "pipe", "inherit"],
        env:
          checker === "swh-base"
            ? { ...process.env, SWH_BENCH_PROBES: resolve(flag("baseline"), "index.js") }
            : native && "addon" in native
              ? { ...process.env, SWH_BENCH_NATIVE: native.addon }
              : process.env,
      },
    );
    measured.push(child);
    count = counterOf(child);
  }
  const [main] = measured as [ChildProcess];
  try {
    await sleep(warmupMs);
    for (const child of [main, driver])
      if (child && child.exitCode !== null)
        throw new Error(`${checker} exited during the warm-up (${child.exitCode})`);
    const before = {
      cpu: cpuSeconds(main.pid as number),
      driverCpu: driver ? total(cpuSeconds(driver.pid as number)) : 0,
    };
    const server0 = await nginxCounters();
    const counted0 = await count?.();
    const haproxy0 = checker === "haproxy" ? await haproxyStat() : undefined;
    const opens0 = activeOpens();
    const wall0 = performance.now();
    let peakRss = 0;
    let driverPeakRss = 0;
    for (let t = 0; t < durationMs; t += 1000) {
      await sleep(Math.min(1000, durationMs - t));
      peakRss = Math.max(peakRss, memoryMB(main.pid as number).rss);
      if (driver) driverPeakRss = Math.max(driverPeakRss, memoryMB(driver.pid as number).rss);
    }
    const after = cpuSeconds(main.pid as number);
    const cpu = total(after) - total(before.cpu);
    const systemShare = (after.system - before.cpu.system) / cpu;
    const driverCpu = driver ? total(cpuSeconds(driver.pid as number)) - before.driverCpu : undefined;
    const wall = (performance.now() - wall0) / 1000;
    const opens = activeOpens() - opens0;
    const server1 = await nginxCounters();
    const counted1 = await count?.();
    const haproxy1 = checker === "haproxy" ? await haproxyStat() : undefined;
    const checkerCounted =
      counted0 && counted1
        ? { checks: counted1.checks - counted0.checks, ok: counted1.ok - counted0.ok }
        : undefined;
    // The server counts HTTP requests and TCP connections; the status request itself is one of each. HAProxy's
    // TCP check never completes the handshake on the server's side (it resets after the SYN-ACK), so nginx never
    // accepts it: its checks are the connections it opened, less the ones it counted as failed.
    const haproxyTcp = checker === "haproxy" && kind === "tcp";
    const checks =
      kind === "http"
        ? server1.requests - server0.requests - 1
        : haproxyTcp
          ? opens - ((haproxy1?.failedChecks ?? 0) - (haproxy0?.failedChecks ?? 0))
          : kind === "tcp"
            ? server1.accepts - server0.accepts - 1
            : (checkerCounted?.ok ?? 0);
    const run: Run = {
      kind,
      checker,
      round,
      load,
      checks,
      checksPerSecond: Math.round(checks / wall),
      cpuSeconds: round3(cpu),
      cpuPer1000: round3((cpu / checks) * 1000),
      systemShare: Math.round(systemShare * 100) / 100,
      peakRssMB: Math.round(Math.max(peakRss, memoryMB(main.pid as number).hwm)),
      connectionsOpened: opens,
      timeWait: timeWaitCount(port),
    };
    if (checkerCounted) run.checkerCounted = checkerCounted;
    if (driverCpu !== undefined) {
      run.driverCpuPer1000 = round3((driverCpu / checks) * 1000);
      run.driverPeakRssMB = Math.round(driverPeakRss);
    }
    if (haproxy0 && haproxy1)
      run.haproxy = { serversUp: haproxy1.up, failedChecks: haproxy1.failedChecks - haproxy0.failedChecks };
    return run;
  } finally {
    for (const child of [driver, ...measured]) {
      if (!child || child.exitCode !== null) continue;
      // Our own checkers exit when their stdin ends (a CPU profile is written then); the others are signalled.
      const exited = once(child, "exit");
      if (child.stdin) child.stdin.end();
      else child.kill();
      await Promise.race([exited, sleep(5000).then(() => child.kill())]);
      await exited;
    }
  }
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function table(runs: readonly Run[]): string {
  const lines = [
    "| kind | checker | round | checks/s | CPU-s / 1,000 checks | kernel share | × HAProxy | × blackbox | × floor | × swh-base | peak RSS MB | TIME_WAIT at end | load (1/5/15 min) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of runs) {
    const peer = (c: Checker) =>
      runs.find((p) => p.kind === r.kind && p.round === r.round && p.checker === c);
    const ratio = (c: Checker) => {
      const p = peer(c);
      if (!p || p === r) return "";
      if (p.missing) return "MISSING";
      return r.cpuPer1000 && p.cpuPer1000 ? (r.cpuPer1000 / p.cpuPer1000).toFixed(2) : "";
    };
    if (r.missing) {
      lines.push(
        `| ${r.kind} | ${r.checker} | ${r.round} | **MISSING: ${r.missing}** | | | | | | | | | ${r.load} |`,
      );
      continue;
    }
    const driver =
      r.driverCpuPer1000 === undefined ? "" : ` (+ driver ${r.driverCpuPer1000}, ${r.driverPeakRssMB} MB)`;
    lines.push(
      `| ${r.kind} | ${r.checker} | ${r.round} | ${r.checksPerSecond} | ${r.cpuPer1000}${driver} | ${r.systemShare} | ${ratio("haproxy")} | ${ratio("blackbox")} | ${ratio("floor")} | ${ratio("swh-base")} | ${r.peakRssMB} | ${r.timeWait} | ${r.load} |`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const missing = Object.values(COMMANDS).filter((c) => !installed(c));
  if (!installed("nginx")) throw new Error("nginx is not installed: run scripts/install-bench-peers.sh");
  for (const command of missing)
    console.error(`\n*** PEER MISSING: ${command} is not installed; its column is printed as MISSING ***\n`);
  mkdirSync(workDir, { recursive: true });
  const nginx = startNginx();
  const grpcTargets = kinds.includes("grpc") ? await startGrpcTargets() : undefined;
  const runs: Run[] = [];
  try {
    await sleep(500);
    for (let round = 1; round <= rounds; round++)
      for (const kind of kinds)
        for (const checker of checkers) {
          if (!APPLIES[checker].includes(kind)) continue;
          const run = await measure(kind, checker, round);
          console.log(JSON.stringify(run));
          runs.push(run);
        }
  } finally {
    nginx.kill("SIGQUIT");
    grpcTargets?.kill();
  }
  console.log(
    `\n${targets} targets per kind, period ${periodMs} ms, timeout ${timeoutMs} ms, ${durationMs / 1000} s per checker` +
      ` after ${warmupMs / 1000} s warm-up, Node ${process.version}; blackbox figures are the exporter's process,` +
      " its driver's CPU in brackets (not included).\n",
  );
  console.log(table(runs));
  const swhHttp = runs.filter((r) => r.checker === "swh" && r.kind === "http" && r.cpuPer1000);
  const swhGrpc = runs.filter((r) => r.checker === "swh" && r.kind === "grpc" && r.cpuPer1000);
  for (const g of swhGrpc) {
    const h = swhHttp.find((r) => r.round === g.round);
    if (h?.cpuPer1000 && g.cpuPer1000)
      console.log(`round ${g.round}: swh gRPC / swh HTTP = ${(g.cpuPer1000 / h.cpuPer1000).toFixed(2)}`);
  }
  if (runs.some((r) => r.missing)) {
    console.error("\n*** A PEER WAS MISSING: the comparison above is incomplete ***");
    process.exitCode = 1;
  }
}

if (grpcTargetPorts !== undefined) {
  const ports = grpcTargetPorts.split(",").map(Number);
  await Promise.all(
    ports.map((port) => {
      const server = createServer(answerGrpcRaw).listen(port, "0.0.0.0", 4096);
      return once(server, "listening");
    }),
  );
  process.stdout.write("ready\n");
} else await main();
