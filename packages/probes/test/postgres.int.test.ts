/** probePostgres against a real PostgreSQL server (with TLS and client certificates) on a pod-like address. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCa, type PostgresServer, startPostgres } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgresCredentials, type PostgresProbeConfig, probePostgres } from "../src/index.js";
import { cli, TIMEOUT } from "./helpers/cli.js";
import { closedPort, flood, startHttpServer, startTcpServer } from "./helpers/servers.js";

const PG_HOST = "10.244.9.10";
let pg: PostgresServer;

beforeAll(async () => {
  pg = await startPostgres({
    host: PG_HOST,
    users: [
      { name: "app", password: "app-secret" },
      { name: "certonly", certOnly: true },
    ],
  });
});
afterAll(async () => {
  await pg?.stop();
});

const app = (over: Partial<PostgresCredentials> = {}): PostgresCredentials => ({
  user: "app",
  password: "app-secret",
  ...over,
});
/** Default deadline: far beyond what a probe of a local server needs, however loaded the machine. */
const probe = (config: PostgresProbeConfig, timeoutMs = 10_000) =>
  probePostgres({ host: pg.host, port: pg.port }, config, { timeoutMs });

describe("probePostgres TLS modes", () => {
  it("Disabled connects without TLS", async () => {
    expect(await probe({ credentials: app({ tlsMode: "Disabled" }) })).toMatchObject({ ok: true });
    const rows = (await pg.query(
      "select count(*)::int as n from pg_stat_ssl s join pg_stat_activity a using (pid) where a.usename = 'app' and s.ssl",
    )) as { n: number }[];
    expect(rows[0]?.n).toBe(0);
  });

  it("a missing tlsMode means SkipVerification: TLS required, certificate not checked", async () => {
    expect(await probe({ credentials: app() })).toMatchObject({ ok: true });
    expect(await probe({ credentials: app({ tlsMode: "SkipVerification" }) })).toMatchObject({ ok: true });
  });

  it("VerifyCA and VerifyAll pass with the server's CA and fail with another one", async () => {
    for (const tlsMode of ["VerifyCA", "VerifyAll"] as const) {
      expect(await probe({ credentials: app({ tlsMode, caCert: pg.caPem }) })).toMatchObject({ ok: true });
      const wrong = await probe({ credentials: app({ tlsMode, caCert: makeCa("unrelated").certPem }) });
      expect(wrong).toMatchObject({ ok: false, reason: "TLSError" });
    }
  });

  it("VerifyCA without a CA checks against the system roots and fails for a private CA", async () => {
    expect(await probe({ credentials: app({ tlsMode: "VerifyCA" }) })).toMatchObject({
      ok: false,
      reason: "TLSError",
    });
  });

  it("authenticates a certificate-only user by client certificate", async () => {
    const { cert, key } = pg.clientCert("certonly");
    const withCert = await probe({
      credentials: {
        user: "certonly",
        tlsMode: "VerifyAll",
        caCert: pg.caPem,
        clientCert: cert,
        clientKey: key,
      },
    });
    expect(withCert).toMatchObject({ ok: true });
    const without = await probe({
      credentials: { user: "certonly", tlsMode: "VerifyAll", caCert: pg.caPem },
    });
    expect(without).toMatchObject({ ok: false, reason: "AuthFailed" });
  });

  it("a wrong password is AuthFailed and the message does not contain the password", async () => {
    const result = await probe({ credentials: app({ password: "not-the-password" }) });
    expect(result).toMatchObject({ ok: false, reason: "AuthFailed" });
    expect(result.message).not.toContain("not-the-password");
  });
});

describe("probePostgres phase timings", () => {
  const timed = (credentials: PostgresCredentials) =>
    probePostgres({ host: pg.host, port: pg.port }, { credentials }, { timeoutMs: 10_000, timings: true });
  const order = (t: Record<string, number | undefined> = {}) =>
    ["connectMs", "tlsMs", "firstByteMs", "totalMs"].filter((k) => t[k] !== undefined);

  it("over TLS: connect, the handshake, the query's answer and the total, each no earlier than the one before", async () => {
    const result = await timed(app({ tlsMode: "SkipVerification" }));
    expect(result.ok).toBe(true);
    const t = result.timings;
    expect(order({ ...t })).toEqual(["connectMs", "tlsMs", "firstByteMs", "totalMs"]);
    expect(t?.connectMs).toBeLessThanOrEqual(t?.tlsMs ?? Number.NaN);
    expect(t?.tlsMs).toBeLessThanOrEqual(t?.firstByteMs ?? Number.NaN);
    expect(t?.firstByteMs).toBeLessThanOrEqual(t?.totalMs ?? Number.NaN);
    expect(t?.totalMs).toBe(result.durationMs);
  });

  it("without TLS: no TLS phase; a refused port: the total only", async () => {
    const plain = await timed(app({ tlsMode: "Disabled" }));
    expect(plain.ok).toBe(true);
    expect(order({ ...plain.timings })).toEqual(["connectMs", "firstByteMs", "totalMs"]);
    const refused = await probePostgres(
      { host: pg.host, port: await closedPort(pg.host) },
      { credentials: app() },
      { timeoutMs: 10_000, timings: true },
    );
    expect(refused).toMatchObject({ ok: false, reason: "ConnectionRefused" });
    expect(order({ ...refused.timings })).toEqual(["totalMs"]);
  });
});

describe("swh-probe postgres against the same server", () => {
  const dir = mkdtempSync(join(tmpdir(), "swh-probe-cli-postgres-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const passwordFile = (password: string) => {
    const file = join(dir, `${password}.txt`);
    writeFileSync(file, `${password}\n`);
    return file;
  };

  it("-v: one line with connect, TLS, the query's first byte and the total", async () => {
    const target = `${pg.host}:${pg.port}`;
    const argv = ["postgres", target, "--user", "app", "--password-file", passwordFile("app-secret")];
    const { code, out } = await cli(...argv, "--query", "select 1", "-v", ...TIMEOUT);
    expect(code).toBe(0);
    const ms = "[\\d.]+ ms";
    expect(out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PASS postgres ${target}: query returned "1" in ${ms} \\(connect ${ms}, TLS ${ms}, first byte ${ms}, total ${ms}\\)$`,
        ),
      ),
    ]);
  });

  it("a wrong password: exit 1, one line with AuthFailed", async () => {
    const target = `${pg.host}:${pg.port}`;
    const { code, out } = await cli(
      "postgres",
      target,
      "--user",
      "app",
      "--password-file",
      passwordFile("wrong"),
      ...TIMEOUT,
    );
    expect(code).toBe(1);
    expect(out).toEqual([
      expect.stringMatching(new RegExp(`^FAIL postgres ${target}: AuthFailed: .+ in [\\d.]+ ms$`)),
    ]);
  });
});

describe("probePostgres query truthiness (SPEC §2.2)", () => {
  it.each(["select true", "select 't'", "select 1", "select 1::bigint", "select 'yes'", "select 'ON'"])(
    "%s passes",
    async (query) => {
      expect(await probe({ dbName: "app", query, credentials: app() })).toMatchObject({ ok: true });
    },
  );

  it.each(["select false", "select 0", "select 'no'", "select null", "select 1 where false", "select 2"])(
    "%s fails with QueryFalse",
    async (query) => {
      expect(await probe({ dbName: "app", query, credentials: app() })).toMatchObject({
        ok: false,
        reason: "QueryFalse",
      });
    },
  );

  it("an SQL error is QueryError", async () => {
    expect(await probe({ query: "select from nowhere", credentials: app() })).toMatchObject({
      ok: false,
      reason: "QueryError",
    });
  });

  it("pg_sleep beyond the timeout ends at the deadline with Timeout", async () => {
    const result = await probe({ query: "select pg_sleep(30) is not null", credentials: app() }, 800);
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
  });
});

describe("probePostgres against hostile or absent servers", () => {
  // Verdicts other than Timeout get a deadline no local exchange needs, so load cannot turn them into a Timeout.
  const timeoutMs = 10_000;

  it("a closed port is ConnectionRefused", async () => {
    const port = await closedPort("10.244.9.11");
    const result = await probePostgres({ host: "10.244.9.11", port }, { credentials: app() }, { timeoutMs });
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it("a server that accepts and never answers ends with Timeout", async () => {
    const server = await startTcpServer("10.244.9.11");
    const result = await probePostgres(
      { host: "10.244.9.11", port: server.port },
      { credentials: app({ tlsMode: "Disabled" }) },
      { timeoutMs: 600 },
    );
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
  });

  it.each(["Disabled", "SkipVerification"] as const)(
    "an HTTP server on the PostgreSQL port fails (%s)",
    async (tlsMode) => {
      const server = await startHttpServer("10.244.9.11", (_req, res) => res.end("not postgres"));
      const result = await probePostgres(
        { host: "10.244.9.11", port: server.port },
        { credentials: app({ tlsMode }) },
        { timeoutMs },
      );
      expect(result.ok).toBe(false);
      // Seen: ProtocolError (Disabled), TLSError (SkipVerification). Not Timeout: the answer ends the exchange.
      expect(["ProtocolError", "TLSError", "ConnectionReset"]).toContain(result.reason);
    },
  );

  it("garbage bytes on the PostgreSQL port fail", async () => {
    const server = await startTcpServer("10.244.9.11", (socket) =>
      socket.once("data", () => socket.end("R\0\0\0\x08garbage-garbage")),
    );
    const result = await probePostgres(
      { host: "10.244.9.11", port: server.port },
      { credentials: app({ tlsMode: "Disabled" }) },
      { timeoutMs },
    );
    // pg's parser throws on this message; the probe must turn that into a result, not an uncaught exception.
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
  });

  it("an endless message is cut at the byte bound", async () => {
    const server = await startTcpServer("10.244.9.11", (socket) =>
      socket.once("data", () => {
        socket.write(Buffer.from([0x44, 0x7f, 0xff, 0xff, 0xff]));
        flood(socket, Buffer.alloc(64 * 1024, 1));
      }),
    );
    const result = await probePostgres(
      { host: "10.244.9.11", port: server.port },
      { credentials: app({ tlsMode: "Disabled" }) },
      { timeoutMs },
    );
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain("more than");
  });
});
