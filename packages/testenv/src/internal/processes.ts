import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";

/** A long-running process started in its own process group, with stdout+stderr appended to `logPath`. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** The child handle; undefined when the process was started by another Node process. */
  readonly child: ChildProcess | undefined;
}

/** Options for {@link spawnLogged}. */
export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  cwd?: string;
  /** Let the process outlive this Node process (used by `restartApiServer` in a test worker). */
  unref?: boolean;
}

/**
 * Starts `command args` detached in a new process group (so the whole group can be killed), with
 * output appended to `logPath`. Throws when the binary cannot be spawned at all.
 */
export function spawnLogged(
  name: string,
  command: string,
  args: readonly string[],
  logPath: string,
  opts: SpawnOptions = {},
): ManagedProcess {
  const fd = openSync(logPath, "a");
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: opts.env ?? process.env,
      ...(opts.uid === undefined ? {} : { uid: opts.uid }),
      ...(opts.gid === undefined ? {} : { gid: opts.gid }),
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    });
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command}); log: ${logPath}`);
    // A spawn error (e.g. ENOENT) is reported through exitedEarly/isAlive; keep it from crashing the process.
    child.on("error", () => {});
    if (opts.unref) child.unref();
    return { name, pid: child.pid, logPath, child };
  } finally {
    closeSync(fd);
  }
}

/** True when `pid` exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; "Z" is a zombie waiting to be reaped.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Stops the process group led by `pid`: `first` (default SIGTERM), then SIGKILL after `graceMs`. Resolves once the
 * leader is gone. A group that is already gone is fine.
 */
export async function killGroup(
  pid: number,
  graceMs = 5_000,
  first: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  signal(first);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await delay(50);
  if (isAlive(pid)) {
    signal("SIGKILL");
    const hardDeadline = Date.now() + 5_000;
    while (isAlive(pid) && Date.now() < hardDeadline) await delay(50);
  }
  // Children of the leader in the same group get the signal too; SIGKILL any leftovers.
  signal("SIGKILL");
}

/** The last `lines` lines of a log file, or a note that it cannot be read. */
export function logTail(logPath: string, lines = 40): string {
  try {
    return readFileSync(logPath, "utf8").split("\n").slice(-lines).join("\n");
  } catch (error) {
    return `(cannot read ${logPath}: ${String(error)})`;
  }
}

/** Error for a process that died or never became ready; the message carries the log path and tail. */
export class ProcessFailedError extends Error {
  constructor(what: string, proc: { name: string; logPath: string }, options?: ErrorOptions) {
    super(
      `${proc.name} ${what}; log: ${proc.logPath}\n--- last lines ---\n${logTail(proc.logPath)}`,
      options,
    );
    this.name = "ProcessFailedError";
  }
}

/** Resolves after `ms` milliseconds. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `ready` until it resolves true, throwing a {@link ProcessFailedError} with the log tail when
 * the process dies first or `timeoutMs` passes.
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (!isAlive(proc.pid)) throw new ProcessFailedError("exited before it became ready", proc);
    try {
      if (await ready()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new ProcessFailedError(`not ready after ${timeoutMs} ms`, proc, { cause: lastError });
    }
    await delay(100);
  }
}
