/**
 * Runs the controller or the agent as a real child process from its built bundle, the way a kubelet would run the
 * container: own ServiceAccount kubeconfig, flags as in deploy/manifests, logs to a file. Used by the end-to-end
 * suite, the demo and the benchmarks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { httpsGet, waitFor } from "@swh/testenv";
import { freePort } from "./free-port.js";
import { type AppName, bundlePath, nodeFlags } from "./repo-paths.js";

export interface AppProcessOptions {
  app: AppName;
  /** Unique name, used for the log file and as POD_NAME. */
  name: string;
  kubeconfigPath: string;
  namespace: string;
  logDir: string;
  env?: Record<string, string>;
  args?: string[];
  /** Flags for node itself (e.g. V8 heap limits), placed before the bundle as the image entrypoint does. */
  nodeArgs?: string[];
  /** Bearer token `metrics()` scrapes with: a ServiceAccount allowed get on /metrics. */
  metricsToken?: string;
}

/** A running app process. */
export interface AppProcess {
  readonly name: string;
  readonly pid: number;
  readonly healthPort: number;
  readonly metricsPort: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Waits until /readyz answers 200. */
  ready(timeoutMs?: number): Promise<void>;
  /** Scrapes the app's HTTPS /metrics with `metricsToken` (rejects unless 200) and returns the text. */
  metrics(): Promise<string>;
  /** Sends SIGTERM (graceful) and waits for the exit. */
  stop(): Promise<number | string>;
  /** SIGKILL: the process dies without any clean-up (a crashed pod). */
  kill(): Promise<number | string>;
}

/** Starts `node apps/<app>/dist/main.mjs` with health (HTTP) and metrics (HTTPS) on free loopback ports. */
export async function startApp(opts: AppProcessOptions): Promise<AppProcess> {
  const bundle = bundlePath(opts.app);
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm turbo run build\` first`);
  const healthPort = await freePort();
  const metricsPort = await freePort();
  const logFile = join(opts.logDir, `${opts.name}.log`);
  const log = createWriteStream(logFile, { flags: "a" });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeFlags(opts.app),
      ...(opts.nodeArgs ?? []),
      bundle,
      `--kubeconfig=${opts.kubeconfigPath}`,
      `--health-bind-address=127.0.0.1:${healthPort}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      ...(opts.args ?? []),
    ],
    {
      env: { PATH: process.env.PATH ?? "", POD_NAME: opts.name, POD_NAMESPACE: opts.namespace, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      log.end();
      resolve(code ?? signal ?? "unknown");
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${opts.name}`);

  let done = false;
  void exited.then(() => {
    done = true;
  });
  const terminate = async (signal: NodeJS.Signals) => {
    if (!done) child.kill(signal);
    return exited;
  };
  return {
    name: opts.name,
    pid,
    healthPort,
    metricsPort,
    logFile,
    exited,
    async ready(timeoutMs = 60_000) {
      await waitFor(
        `${opts.name} /readyz (log: ${logFile})`,
        async () => {
          if (done) throw new Error(`${opts.name} exited early:\n${tail(logFile)}`);
          const res = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined);
          return res?.status === 200;
        },
        { timeoutMs, intervalMs: 100 },
      );
    },
    async metrics() {
      // The app's certificate is self-signed unless the test passed certificate flags: skip verification.
      const answer = await httpsGet(metricsPort, "/metrics", { token: opts.metricsToken });
      if (answer.status !== 200)
        throw new Error(`${opts.name} /metrics: HTTP ${answer.status}: ${answer.body}`);
      return answer.body;
    },
    stop: () => terminate("SIGTERM"),
    kill: () => terminate("SIGKILL"),
  };
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}
