/**
 * SPEC §8: every hostile target ends within its timeout with a reason. The vitest timeout bounds "ends"; the
 * assertions check that the call returned and why.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { probeHttp } from "../src/index.js";
import { flood, startTcpServer, trickle } from "./helpers/servers.js";

const HOST = "127.0.0.1";
const opts = { timeoutMs: 400 };

describe("hostile HTTP targets", () => {
  it("a server that accepts but never answers → Timeout while waiting for headers", async () => {
    const server = await startTcpServer(HOST);
    const result = await probeHttp({ host: HOST, port: server.port }, {}, opts);
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("waiting for response headers");
  });

  it("headers at one byte per interval → Timeout", async () => {
    const server = await startTcpServer(HOST, (socket) => trickle(socket, "H", 100));
    const result = await probeHttp({ host: HOST, port: server.port }, {}, opts);
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
    const result = await probeHttp({ host: HOST, port: server.port }, {}, opts);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain("larger than");
  });

  it("an endless body is cut at the cap and the status decides", async () => {
    const server = await startTcpServer(HOST, (socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      flood(socket, Buffer.from(`400\r\n${"b".repeat(0x400)}\r\n`));
    });
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({ ok: true });
  });

  it("a body trickling forever → Timeout while reading the body", async () => {
    const server = await startTcpServer(HOST, (socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
      trickle(socket, "b", 50);
    });
    const result = await probeHttp({ host: HOST, port: server.port }, {}, opts);
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("body");
  });

  it("a connection reset → ConnectionReset", async () => {
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.resetAndDestroy()),
    );
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({
      ok: false,
      reason: "ConnectionReset",
    });
  });

  it("a close before any response → ConnectionReset", async () => {
    const server = await startTcpServer(HOST, (socket) => socket.once("data", () => socket.end()));
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({
      ok: false,
      reason: "ConnectionReset",
    });
  });

  it("a non-HTTP answer → ProtocolError", async () => {
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.write("SSH-2.0-OpenSSH_9.6\r\n")),
    );
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({
      ok: false,
      reason: "ProtocolError",
    });
  });

  it("TLS garbage → TLSError", async () => {
    const server = await startTcpServer(HOST, (socket) =>
      socket.once("data", () => socket.write(randomBytes(4096))),
    );
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      opts,
    );
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
  });

  it("a TLS server that never finishes the handshake → Timeout in the TLS handshake", async () => {
    const server = await startTcpServer(HOST);
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      opts,
    );
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("TLS handshake");
  });
});
