import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgresServer, startPostgres, waitFor } from "../src/index.ts";

// Pod addresses inside the network namespace of the integration run.
const PRIMARY_HOST = "10.244.9.10";
const REPLICA_HOST = "10.244.9.11";

let primary: PostgresServer;
let replica: PostgresServer | undefined;

beforeAll(async () => {
  primary = await startPostgres({
    host: PRIMARY_HOST,
    users: [
      { name: "app", password: "s3cret" },
      { name: "certuser", certOnly: true },
    ],
  });
});

afterAll(async () => {
  await replica?.stop();
  await primary?.stop();
});

async function connect(config: pg.ClientConfig): Promise<string> {
  const client = new pg.Client({ connectionTimeoutMillis: 10_000, ...config });
  await client.connect();
  try {
    const result = await client.query(
      "select current_user as who, ssl from pg_stat_ssl where pid = pg_backend_pid()",
    );
    return `${result.rows[0].who} ssl=${result.rows[0].ssl}`;
  } finally {
    await client.end();
  }
}

describe("startPostgres", () => {
  it("accepts a password user over TLS with full verification (CA + host name)", async () => {
    const who = await connect({
      host: PRIMARY_HOST,
      port: primary.port,
      user: "app",
      password: "s3cret",
      ssl: { ca: primary.caPem, servername: undefined, rejectUnauthorized: true },
    });
    expect(who).toBe("app ssl=true");
  });

  it("rejects a wrong password", async () => {
    await expect(
      connect({
        host: PRIMARY_HOST,
        port: primary.port,
        user: "app",
        password: "wrong",
        ssl: { ca: primary.caPem },
      }),
    ).rejects.toThrow(/password authentication failed/);
  });

  it("fails TLS verification against another CA", async () => {
    const other = await startPostgres({ host: "10.244.9.12", users: [{ name: "app", password: "x" }] });
    try {
      await expect(
        connect({
          host: PRIMARY_HOST,
          port: primary.port,
          user: "app",
          password: "s3cret",
          ssl: { ca: other.caPem },
        }),
      ).rejects.toThrow(/certificate/);
    } finally {
      await other.stop();
    }
  });

  it("accepts a password user without TLS too (for clients with TLS disabled)", async () => {
    const who = await connect({
      host: PRIMARY_HOST,
      port: primary.port,
      user: "app",
      password: "s3cret",
      ssl: false,
    });
    expect(who).toBe("app ssl=false");
  });

  it("accepts a client-certificate user only with its certificate", async () => {
    const { cert, key } = primary.clientCert("certuser");
    const who = await connect({
      host: PRIMARY_HOST,
      port: primary.port,
      user: "certuser",
      ssl: { ca: primary.caPem, cert, key },
    });
    expect(who).toBe("certuser ssl=true");
    await expect(
      connect({ host: PRIMARY_HOST, port: primary.port, user: "certuser", ssl: { ca: primary.caPem } }),
    ).rejects.toThrow(/certificate/);
  });

  it("starts a streaming replica that is in recovery, sees the primary's writes and can be promoted", async () => {
    await primary.query("create table marks (id int)");
    await primary.query("insert into marks values (1)");
    replica = await startPostgres({ host: REPLICA_HOST, replicaOf: primary });
    const replicaServer = replica;
    expect(await replicaServer.query("select pg_is_in_recovery() as r")).toEqual([{ r: true }]);
    await primary.query("insert into marks values (2)");
    await waitFor("the replica to stream the second row", async () => {
      const rows = (await replicaServer.query("select count(*)::int as n from marks")) as { n: number }[];
      return rows[0]?.n === 2;
    });
    const who = await connect({
      host: REPLICA_HOST,
      port: replicaServer.port,
      user: "app",
      password: "s3cret",
      ssl: { ca: replicaServer.caPem },
    });
    expect(who).toBe("app ssl=true");

    await replicaServer.promote();
    expect(await replicaServer.query("select pg_is_in_recovery() as r")).toEqual([{ r: false }]);
  });
});
