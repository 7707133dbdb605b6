/**
 * A real Redis server for probe tests (Debian's `redis-server`): a primary, or a replica of one, on an address of
 * the test's own network namespace (so protected mode is off), without persistence. TCP send/expect checks (ADR 0036) are tested against
 * it: `ROLE` answers `master` on the primary and `slave` on a replica, which is how a primary-only balancer is
 * built.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./internal/free-port.js";
import { killGroup, type ManagedProcess, spawnLogged, waitUntilReady } from "./internal/processes.js";

const run = promisify(execFile);
const READY_TIMEOUT_MS = 30_000;

/** A running Redis server. */
export interface RedisServer {
  host: string;
  port: number;
  /** Runs one command with `redis-cli` and returns its output (e.g. `["ROLE"]`). */
  command(args: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on `host:port` (a free port by default), as a replica of `replicaOf` when given; resolves
 * once it answers (a replica: once it is connected to its primary). Throws with the log tail when it does not
 * come up, and names the Debian package when the binary is missing.
 */
export async function startRedis(opts: {
  host: string;
  port?: number;
  replicaOf?: RedisServer;
}): Promise<RedisServer> {
  if (isIP(opts.host) === 0) throw new Error(`startRedis: host "${opts.host}" must be an IP address`);
  await run("redis-server", ["--version"]).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    throw new Error("startRedis: no redis-server — install Debian's redis-server package");
  });
  const port = opts.port ?? (await freePort(opts.host));
  const dir = mkdtempSync(join(tmpdir(), "swh-redis-"));
  const args = [
    "--bind",
    opts.host,
    "--port",
    String(port),
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
    "--protected-mode",
    "no",
  ];
  if (opts.replicaOf) args.push("--replicaof", opts.replicaOf.host, String(opts.replicaOf.port));
  let proc: ManagedProcess | undefined;
  const stop = async () => {
    if (proc) await killGroup(proc.pid, 10_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const command = async (cli: readonly string[]) =>
    (await run("redis-cli", ["-h", opts.host, "-p", String(port), ...cli], { timeout: 10_000 })).stdout;
  try {
    proc = spawnLogged(`redis ${opts.host}:${port}`, "redis-server", args, join(dir, "redis.log"));
    const ready = opts.replicaOf
      ? async () => (await command(["ROLE"])).includes("connected")
      : async () => (await command(["PING"])).trim() === "PONG";
    await waitUntilReady(proc, ready, READY_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  return { host: opts.host, port, command, stop };
}
