/**
 * TCP send/expect against a real Redis primary and replica (ADR 0036): the check a primary-only balancer uses.
 * `ROLE` answers `master` only on the primary; `QUIT` makes Redis close the connection after answering, so a
 * replica's answer is judged at once (`TCPResponse`) instead of waiting for the deadline.
 */
import { type RedisServer, startRedis } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeBySpec, probeTcp } from "../src/index.js";

const HOST = "10.244.9.20";
let primary: RedisServer;
let replica: RedisServer;

beforeAll(async () => {
  primary = await startRedis({ host: HOST });
  replica = await startRedis({ host: HOST, replicaOf: primary });
});
afterAll(async () => {
  await replica?.stop();
  await primary?.stop();
});

/** Far beyond what a local server needs: no outcome below is a Timeout. */
const opts = { timeoutMs: 10_000 };
const primaryOnly = { send: "ROLE\r\nQUIT\r\n", expect: "master" };

describe("TCP send/expect against Redis", () => {
  it("PING → +PONG passes on both", async () => {
    for (const server of [primary, replica]) {
      const result = await probeTcp(
        { host: HOST, port: server.port },
        { send: "PING\r\n", expect: "+PONG" },
        opts,
      );
      expect(result).toMatchObject({ ok: true });
    }
  });

  it("ROLE → master passes on the primary and fails on the replica with TCPResponse", async () => {
    expect(await probeTcp({ host: HOST, port: primary.port }, primaryOnly, opts)).toMatchObject({ ok: true });
    const onReplica = await probeTcp({ host: HOST, port: replica.port }, primaryOnly, opts);
    expect(onReplica).toMatchObject({ ok: false, reason: "TCPResponse" });
    expect(onReplica.message).toMatch(/^the server closed the connection after \d+ bytes without "master"$/);
  });

  it("follows a failover: a replica fails until it is promoted, then passes", async () => {
    const spare = await startRedis({ host: HOST, replicaOf: primary });
    try {
      const spec = {
        mode: "TCP" as const,
        timeoutSeconds: 10,
        tcp: { targetPort: spare.port, ...primaryOnly },
      };
      expect(await probeBySpec({ host: HOST, port: spare.port }, spec)).toMatchObject({ ok: false });
      await spare.command(["REPLICAOF", "NO", "ONE"]);
      expect(await probeBySpec({ host: HOST, port: spare.port }, spec)).toMatchObject({ ok: true });
    } finally {
      await spare.stop();
    }
  });
});
