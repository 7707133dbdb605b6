/**
 * SPEC §8: every hostile target ends within its timeout with a reason. The assertions check that the call
 * returned and why.
 *
 * No outcome here depends on how fast a loaded machine runs: where the expected outcome is a protocol verdict,
 * the deadline is far beyond what the exchange needs (a regression still shows as a `Timeout` where another
 * reason was expected); where the expected outcome is a `Timeout` in a named phase, the deadline runs on a manual
 * clock that the test advances only after the server has seen the probe reach that phase.
 */
import type { Socket } from "node:net";
import { waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { probeHttp } from "../src/index.js";
import { ManualClock } from "./helpers/manual-clock.js";
import { flood, startTcpServer, trickle } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** For protocol verdicts: a deadline no exchange on loopback needs, however loaded the machine. */
const generous = { timeoutMs: 10_000 };
const DEADLINE_MS = 400;

/** A server that records every byte it receives and otherwise does what `then` scripts. */
async function recordingServer(then: (socket: Socket) => void = () => {}) {
  const received: Buffer[] = [];
  const server = await startTcpServer(HOST, (socket) => {
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    then(socket);
  });
  return { ...server, received: () => Buffer.concat(received) };
}

describe("hostile HTTP targets", () => {
  it("a server that accepts but never answers → Timeout while waiting for headers", async () => {
    const server = await recordingServer();
    const clock = new ManualClock();
    const probe = probeHttp({ host: HOST, port: server.port }, {}, { timeoutMs: DEADLINE_MS, clock });
    // The request reached the server, so the probe is waiting for the answer; now let the deadline pass.
    await waitFor("the request at the server", () => server.received().includes("\r\n\r\n"));
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toBe(`timed out after ${DEADLINE_MS} ms while waiting for response headers`);
    // Measured on the injected clock too: exactly the time the test let pass.
    expect(result.durationMs).toBe(DEADLINE_MS);
  });

  it("headers at one byte per interval → Timeout (trickling does not extend the deadline)", async () => {
    // Real time on both sides: a deadline that restarted on every byte would never end and fail the test.
    const server = await startTcpServer(HOST, (socket) => {
      socket.write("HTTP/1.1 200 OK\r\nX-Slow: ");
      trickle(socket, "a", 50);
    });
    const result = await probeHttp({ host: HOST, port: server.port }, {}, { timeoutMs: DEADLINE_MS });
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
  });

  it("endless headers → ProtocolError once the head exceeds its bound", async () => {
    const server = await startTcpServer(HOST, (socket) => {
      socket.write("HTTP/1.1 200 OK\r\n");
      flood(
        socket,
        Buffer.from("X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"),
      );
    });
    const result = await probeHttp({ host: HOST, port: server.port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain("larger than");
  });

  it("an endless body is cut at the cap and the status decides", async () => {
    const server = await startTcpServer(HOST, (socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      flood(socket, Buffer.from(`400\r\n${"b".repeat(0x400)}\r\n`));
    });
    expect(await probeHttp({ host: HOST, port: server.port }, {}, generous)).toMatchObject({ ok: true });
  });

  it("a body trickling forever → Timeout while reading the body", async () => {
    let bodyBytesSent = 0;
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
        const timer = setInterval(() => socket.write("b", () => bodyBytesSent++), 5);
        socket.on("close", () => clearInterval(timer));
      }),
    );
    const clock = new ManualClock();
    const probe = probeHttp({ host: HOST, port: server.port }, {}, { timeoutMs: DEADLINE_MS, clock });
    // Body bytes written over several event-loop turns after the head: each turn reads every ready socket, so
    // the probe has read the head by now and is in the body phase.
    await waitFor("body bytes sent after the head", () => bodyBytesSent >= 5, { intervalMs: 5 });
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toBe(`timed out after ${DEADLINE_MS} ms while reading the response body`);
  });

  it("a connection reset → ConnectionReset", async () => {
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.resetAndDestroy()),
    );
    expect(await probeHttp({ host: HOST, port: server.port }, {}, generous)).toMatchObject({
      ok: false,
      reason: "ConnectionReset",
    });
  });

  it("a close before any response → ConnectionReset", async () => {
    const server = await startTcpServer(HOST, (socket) => socket.once("data", () => socket.end()));
    expect(await probeHttp({ host: HOST, port: server.port }, {}, generous)).toMatchObject({
      ok: false,
      reason: "ConnectionReset",
    });
  });

  it("a non-HTTP answer → ProtocolError", async () => {
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.write("SSH-2.0-OpenSSH_9.6\r\n")),
    );
    expect(await probeHttp({ host: HOST, port: server.port }, {}, generous)).toMatchObject({
      ok: false,
      reason: "ProtocolError",
    });
  });

  it("TLS garbage → TLSError", async () => {
    // Fixed bytes, not random ones: about 1 random buffer in 500 starts like a record header announcing more
    // bytes than follow (a high first bit reads as an SSLv2 length), and the client rightly waits for the rest
    // (a Timeout, not a TLSError). Text is what a plain server answers on a TLS port.
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.write(Buffer.alloc(4096, "garbage, not a TLS record\r\n"))),
    );
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      generous,
    );
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
  });

  it("a TLS record cut short (its header announces more than arrives) → Timeout, not a TLSError", async () => {
    const header = Buffer.from([0x16, 0x03, 0x03, 0x40, 0x00]); // a handshake record of 16 KiB
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.write(Buffer.concat([header, Buffer.alloc(100)]))),
    );
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      { timeoutMs: DEADLINE_MS },
    );
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
  });

  it("a TLS server that never finishes the handshake → Timeout in the TLS handshake", async () => {
    const server = await recordingServer();
    const clock = new ManualClock();
    const probe = probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      { timeoutMs: DEADLINE_MS, clock },
    );
    // The ClientHello reached the server: the handshake has begun and will never finish.
    await waitFor("the ClientHello at the server", () => server.received().length > 0);
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("TLS handshake");
  });
});
