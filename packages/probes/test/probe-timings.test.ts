/**
 * `ProbeOptions.timings`: each probe reports when it reached connect, TLS and the first byte of the answer, measured
 * at the events on the probe's clock, against real servers; without the option the result has no timings.
 */
import { makeCa } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { type ProbePhaseTimings, probeGrpc, probeHttp, probeTcp } from "../src/index.js";
import { startHealthServer } from "./helpers/grpc-servers.js";
import { ManualClock } from "./helpers/manual-clock.js";
import { closedPort, startHttpServer, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** A deadline no exchange on loopback needs, however loaded the machine: no test here expects a Timeout. */
const opts = { timeoutMs: 10_000, timings: true };

const ca = makeCa("probes-timings-test-ca");
const cert = ca.issue({ commonName: HOST, altNames: [HOST] });
const tls = { cert: cert.certPem, key: cert.keyPem };

/** The phases present, in the order they were reached; and that each came no earlier than the one before. */
function phasesOf(timings: ProbePhaseTimings | undefined): string[] {
  expect(timings).toBeDefined();
  const order = ["connectMs", "tlsMs", "firstByteMs", "totalMs"] as const;
  const present = order.filter((phase) => timings?.[phase] !== undefined);
  const values = present.map((phase) => timings?.[phase] as number);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  return present;
}

describe("probe phase timings on the probe's clock", () => {
  it("http: the first byte is when the answer came, after the server took its time", async () => {
    const clock = new ManualClock();
    const server = await startHttpServer(HOST, (_req, res) => {
      void clock.advance(5).then(() => res.end("ok"));
    });
    const result = await probeHttp({ host: HOST, port: server.port }, {}, { ...opts, clock });
    expect(result).toMatchObject({
      ok: true,
      durationMs: 5,
      timings: { connectMs: 0, firstByteMs: 5, totalMs: 5 },
    });
    expect(result.timings?.tlsMs).toBeUndefined();
  });

  it("https: connect and the TLS handshake come before the request, the first byte after it", async () => {
    const clock = new ManualClock();
    const server = await startHttpServer(
      HOST,
      (_req, res) => void clock.advance(3).then(() => res.end()),
      tls,
    );
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem },
      { ...opts, clock },
    );
    expect(result).toMatchObject({
      ok: true,
      timings: { connectMs: 0, tlsMs: 0, firstByteMs: 3, totalMs: 3 },
    });
  });

  it("tcp: the first byte is the answer to send, not the connect", async () => {
    const clock = new ManualClock();
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => void clock.advance(4).then(() => socket.end("+PONG\r\n"))),
    );
    const result = await probeTcp(
      { host: HOST, port: server.port },
      { send: "PING\r\n", expect: "+PONG" },
      { ...opts, clock },
    );
    expect(result).toMatchObject({ ok: true, timings: { connectMs: 0, firstByteMs: 4, totalMs: 4 } });
  });
});

describe("probe phase timings: which phases each probe reports", () => {
  it("tcp connect only: connect and total", async () => {
    const server = await startTcpServer(HOST);
    const result = await probeTcp({ host: HOST, port: server.port }, opts);
    expect(phasesOf(result.timings)).toEqual(["connectMs", "totalMs"]);
    expect(result.timings?.totalMs).toBe(result.durationMs);
  });

  it("a refused connection: total only", async () => {
    const result = await probeTcp({ host: HOST, port: await closedPort(HOST) }, opts);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
    expect(phasesOf(result.timings)).toEqual(["totalMs"]);
  });

  it("https with a certificate from an unknown CA: connected, the handshake never completed", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(), tls);
    const result = await probeHttp({ host: HOST, port: server.port }, { scheme: "HTTPS" }, opts);
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
    expect(phasesOf(result.timings)).toEqual(["connectMs", "totalMs"]);
  });

  it("grpc, plain and over TLS: connect, (TLS,) the response headers, total", async () => {
    const plain = await startHealthServer(HOST, { "": "SERVING" });
    const plainResult = await probeGrpc({ host: HOST, port: plain.port }, {}, opts);
    expect(plainResult.ok).toBe(true);
    expect(phasesOf(plainResult.timings)).toEqual(["connectMs", "firstByteMs", "totalMs"]);
    const secure = await startHealthServer(HOST, { "": "SERVING" }, cert);
    const secureResult = await probeGrpc(
      { host: HOST, port: secure.port },
      { tls: true, caCert: ca.certPem },
      opts,
    );
    expect(secureResult.ok).toBe(true);
    expect(phasesOf(secureResult.timings)).toEqual(["connectMs", "tlsMs", "firstByteMs", "totalMs"]);
  });

  it("reports no timings unless asked", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end());
    const result = await probeHttp({ host: HOST, port: server.port }, {}, { timeoutMs: 10_000 });
    expect(result.ok).toBe(true);
    expect(result).not.toHaveProperty("timings");
  });
});
