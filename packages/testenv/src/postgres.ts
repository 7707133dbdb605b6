import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  type PostgresUser,
  REPLICATION_USER,
  renderPgHba,
  sqlLiteral,
  validateUsers,
} from "./internal/postgres-config.js";
import { killGroup, type ManagedProcess, spawnLogged, waitUntilReady } from "./internal/processes.js";
import { type CertificateAuthority, makeCa } from "./make-ca.js";

export type { PostgresUser } from "./internal/postgres-config.js";

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Address to listen on: a pod address inside the network namespace (e.g. 10.244.9.10), or 127.0.0.1. */
  host: string;
  /** Default 5432. */
  port?: number;
  /** Login roles (each also gets a database of the same name): password users and client-cert users. */
  users?: PostgresUser[];
  /** Start as a streaming replica of that primary (pg_basebackup -R -X stream over TLS). */
  replicaOf?: PostgresServer;
}

/** A throwaway PostgreSQL server with TLS (its own CA), started by {@link startPostgres}. */
export interface PostgresServer {
  host: string;
  port: number;
  /** CA that signed the server certificate (CN and subjectAltName = host) and the client certificates. */
  caPem: string;
  /** A client certificate for `user` (CN = user), signed by `caPem`; for cert-only users. */
  clientCert(user: string): { cert: string; key: string };
  superuser: { name: string; password: string };
  /** Runs `sql` as the superuser over the unix socket and returns the rows (test setup/assertions). */
  query(sql: string): Promise<unknown[]>;
  /** Promotes a replica to primary (`pg_promote()`, which waits until it has left recovery). */
  promote(): Promise<void>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

/** What a replica needs from its primary; kept off the public interface. */
const internals = new WeakMap<PostgresServer, { ca: CertificateAuthority; replicationPassword: string }>();

/**
 * Starts a PostgreSQL server from Debian's binaries (`/usr/lib/postgresql/<newest>/bin`, or
 * `$SWH_PG_BIN_DIR`) on `host:port` with TLS, the given users and a replication role, or as a
 * streaming replica of `replicaOf` (which then shares the primary's CA, superuser and users).
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` OS user. Throws with the
 * server log tail when it does not come up.
 */
export async function startPostgres(opts: StartPostgresOptions): Promise<PostgresServer> {
  if (isIP(opts.host) === 0) throw new Error(`startPostgres: host "${opts.host}" must be an IP address`);
  const port = opts.port ?? 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`startPostgres: port ${port} is invalid`);
  const users = opts.users ?? [];
  validateUsers(users);
  if (opts.replicaOf && users.length > 0) {
    throw new Error("startPostgres: users must be empty for a replica (it copies the primary's roles)");
  }
  const primary = opts.replicaOf ? internals.get(opts.replicaOf) : undefined;
  if (opts.replicaOf && !primary) throw new Error("startPostgres: replicaOf must come from startPostgres");

  const binDir = postgresBinDir();
  const owner = runAsOwner();
  const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "swh-pg-"));
  const data = join(dir, "data");
  const sockets = join(dir, "sock");
  mkdirSync(sockets);
  const ca = primary?.ca ?? makeCa(`swh-test-postgres-ca-${opts.host}`);
  const serverCert = ca.issue({ commonName: opts.host, altNames: [opts.host] });
  writeFileSync(join(dir, "server.crt"), serverCert.certPem);
  writeFileSync(join(dir, "server.key"), serverCert.keyPem, { mode: 0o600 });
  writeFileSync(join(dir, "ca.crt"), ca.certPem);
  writeFileSync(join(dir, "pg_hba.conf"), renderPgHba(users));
  const superuser = opts.replicaOf?.superuser ?? { name: "postgres", password: secret() };
  const replicationPassword = primary?.replicationPassword ?? secret();
  writeFileSync(join(dir, "pwfile"), `${superuser.password}\n`, { mode: 0o600 });
  chownTree(dir, owner);

  let proc: ManagedProcess | undefined;
  const stop = async () => {
    process.off("exit", killSync);
    // SIGINT is PostgreSQL's "fast" shutdown: no waiting for clients to disconnect.
    if (proc) await killGroup(proc.pid, 10_000, "SIGINT");
    rmSync(dir, { recursive: true, force: true });
  };
  const killSync = () => {
    if (proc) {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", killSync);

  try {
    if (opts.replicaOf) {
      run(
        join(binDir, "pg_basebackup"),
        ["-D", data, "-R", "-X", "stream", "--no-sync", "-c", "fast"],
        owner,
        {
          PGHOST: opts.replicaOf.host,
          PGPORT: String(opts.replicaOf.port),
          PGUSER: REPLICATION_USER,
          PGPASSWORD: replicationPassword,
          PGSSLMODE: "verify-full",
          PGSSLROOTCERT: join(dir, "ca.crt"),
        },
      );
    } else {
      run(
        join(binDir, "initdb"),
        [
          "-D",
          data,
          "-U",
          superuser.name,
          `--pwfile=${join(dir, "pwfile")}`,
          "-A",
          "scram-sha-256",
          "-E",
          "UTF8",
          "--locale=C",
          "--no-sync",
        ],
        owner,
      );
    }
    const settings: Record<string, string> = {
      listen_addresses: opts.host,
      port: String(port),
      unix_socket_directories: sockets,
      hba_file: join(dir, "pg_hba.conf"),
      ssl: "on",
      ssl_cert_file: join(dir, "server.crt"),
      ssl_key_file: join(dir, "server.key"),
      ssl_ca_file: join(dir, "ca.crt"),
      password_encryption: "scram-sha-256",
      wal_level: "replica",
      max_wal_senders: "5",
      hot_standby: "on",
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
    };
    const args = ["-D", data, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
    proc = spawnLogged(
      `postgres ${opts.host}:${port}`,
      join(binDir, "postgres"),
      args,
      join(dir, "postgres.log"),
      {
        ...owner,
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" },
      },
    );
    const started = proc;
    const query = (sql: string) => runSql(sockets, port, superuser.name, sql);
    await waitUntilReady(started, async () => (await query("select 1")).length === 1, READY_TIMEOUT_MS);

    if (!opts.replicaOf) {
      await query(
        `create role ${REPLICATION_USER} login replication password ${sqlLiteral(replicationPassword)}`,
      );
      for (const user of users) {
        const password = user.password === undefined ? "" : ` password ${sqlLiteral(user.password)}`;
        await query(`create role ${user.name} login${password}`);
        await query(`create database ${user.name} owner ${user.name}`);
      }
    }

    const clientCerts = new Map<string, { cert: string; key: string }>();
    const server: PostgresServer = {
      host: opts.host,
      port,
      caPem: ca.certPem,
      clientCert(user) {
        let pair = clientCerts.get(user);
        if (!pair) {
          const issued = ca.issue({ commonName: user, client: true });
          pair = { cert: issued.certPem, key: issued.keyPem };
          clientCerts.set(user, pair);
        }
        return pair;
      },
      superuser,
      query,
      async promote() {
        const rows = (await query("select pg_promote(true, 60) as promoted")) as { promoted: boolean }[];
        if (rows[0]?.promoted !== true)
          throw new Error(`pg_promote() on ${opts.host}:${port} did not promote`);
      },
      stop,
    };
    internals.set(server, { ca, replicationPassword });
    return server;
  } catch (error) {
    await stop();
    throw error;
  }
}

async function runSql(socketDir: string, port: number, user: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ host: socketDir, port, user, database: "postgres" });
  await client.connect();
  try {
    return (await client.query(sql)).rows as unknown[];
  } finally {
    await client.end();
  }
}

/** The OS user to run PostgreSQL as: `postgres` when we are root (it refuses root), else ourselves. */
function runAsOwner(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error("startPostgres: no `postgres` OS user");
  if (!isMappedUid(uid)) {
    // Root of a user namespace (`unshare -rn` as a normal user) has no other uid to switch to.
    throw new Error(
      `startPostgres: uid ${uid} (postgres) is not mapped in this user namespace; run as real root`,
    );
  }
  return { uid, gid };
}

/** True when `uid` is mapped in this process's user namespace (`/proc/self/uid_map`: inside outside count). */
function isMappedUid(uid: number): boolean {
  return readFileSync("/proc/self/uid_map", "utf8")
    .trim()
    .split("\n")
    .some((line) => {
      const [inside, , count] = line.trim().split(/\s+/).map(Number);
      return inside !== undefined && count !== undefined && uid >= inside && uid < inside + count;
    });
}

function chownTree(path: string, owner: { uid?: number; gid?: number }): void {
  if (owner.uid === undefined || owner.gid === undefined) return;
  chownSync(path, owner.uid, owner.gid);
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    chownSync(join(entry.parentPath, entry.name), owner.uid, owner.gid);
  }
}

function run(
  command: string,
  args: string[],
  owner: { uid?: number; gid?: number },
  env: NodeJS.ProcessEnv = {},
) {
  try {
    execFileSync(command, args, {
      ...owner,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      cwd: "/",
    });
  } catch (error) {
    const out = (error as { stderr?: Buffer; stdout?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`${command} failed: ${out.trim() || String(error)}`, { cause: error });
  }
}

function postgresBinDir(): string {
  const fromEnv = process.env.SWH_PG_BIN_DIR;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (!newest) {
    throw new Error(`startPostgres: no ${root}/<version>/bin/postgres — install Debian's postgresql package`);
  }
  return join(root, newest, "bin");
}

function secret(): string {
  return randomBytes(18).toString("base64url");
}
