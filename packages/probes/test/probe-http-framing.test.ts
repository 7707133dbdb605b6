/**
 * The HTTP probe against real listeners that frame responses in every way RFC 9112 allows (and some it does not),
 * with a body match, and over TLS with IP literals as `host`.
 */
import type { Socket } from "node:net";
import { makeCa } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { ProbeConfigError, probeHttp } from "../src/index.js";
import { startHttpServer, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** A deadline no exchange on loopback needs, however loaded the machine: no test here expects a Timeout. */
const opts = { timeoutMs: 10_000 };

/** A raw server that reads the request and writes `writes` one by one, then keeps the connection open. */
async function scripted(writes: readonly string[]) {
  return startTcpServer(HOST, (socket: Socket) => {
    socket.setNoDelay(true);
    socket.once("data", async () => {
      for (const w of writes) {
        // Separate segments (no Nagle; the next write waits until this one reached the kernel), so the probe
        // usually sees separate reads; the property test of the reader covers every split exhaustively.
        await new Promise((resolve) => socket.write(w, resolve));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  });
}

describe("probeHttp framing", () => {
  it.each([
    [
      "a chunked terminator split across writes",
      ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r", "\n\r\n"],
    ],
    [
      "chunk extensions and trailers",
      ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nok\r\n0\r\nDigest: a\r\n\r\n"],
    ],
    [
      "Transfer-Encoding with a longer Content-Length",
      ["HTTP/1.1 200 OK\r\nContent-Length: 999\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"],
    ],
    ["a head with bare LF line ends", ["HTTP/1.1 200 OK\nContent-Length: 2\n\nok"]],
  ])("passes on %s from a server that ignores Connection: close", async (_, writes) => {
    const server = await scripted(writes);
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({
      ok: true,
      message: "HTTP 200 OK",
    });
  });

  it("fails with ProtocolError on conflicting Content-Length values", async () => {
    const server = await scripted(["HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok"]);
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({
      ok: false,
      reason: "ProtocolError",
      message: expect.stringContaining("conflicting Content-Length"),
    });
  });
});

describe("probeHttp body match", () => {
  const serve = (body: string) => startHttpServer(HOST, (_req, res) => res.end(body));

  it.each([
    { body: '{"status":"UP"}', match: { contains: '"UP"' }, ok: true },
    { body: '{"status":"DOWN"}', match: { contains: '"UP"' }, ok: false },
    { body: "all good", match: { notContains: "error" }, ok: true },
    { body: "1 error", match: { notContains: "error" }, ok: false },
    { body: "état: prêt", match: { contains: "prêt", notContains: "échec" }, ok: true },
  ])("$match on $body → ok=$ok", async ({ body, match, ok }) => {
    const server = await serve(body);
    const result = await probeHttp({ host: HOST, port: server.port }, { body: match }, opts);
    expect(result.ok).toBe(ok);
    if (!ok)
      expect(result).toMatchObject({ reason: "HTTPBody", message: expect.stringMatching(/^HTTP 200 OK: /) });
  });

  it("looks only at the first 4 KiB of the body", async () => {
    const server = await serve(`${"x".repeat(4096)}READY`);
    expect(
      await probeHttp({ host: HOST, port: server.port }, { body: { contains: "READY" } }, opts),
    ).toMatchObject({
      ok: false,
      reason: "HTTPBody",
      message: expect.stringContaining("the first 4096 bytes of the body do not contain"),
    });
  });

  it("matches a chunked body across chunk boundaries", async () => {
    const server = await scripted([
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nREA\r\n",
      "2\r\nDY\r\n0\r\n\r\n",
    ]);
    expect(
      await probeHttp({ host: HOST, port: server.port }, { body: { contains: "READY" } }, opts),
    ).toMatchObject({
      ok: true,
    });
  });

  it("reports a bad status before a body mismatch", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.writeHead(503).end("nope"));
    expect(
      await probeHttp({ host: HOST, port: server.port }, { body: { contains: "ok" } }, opts),
    ).toMatchObject({
      reason: "HTTPStatus",
    });
  });

  it("refuses a body match on HEAD, naming the field", () => {
    expect(() =>
      probeHttp({ host: HOST, port: 80 }, { method: "HEAD", body: { contains: "x" } }, opts),
    ).toThrow(ProbeConfigError);
    expect(() =>
      probeHttp({ host: HOST, port: 80 }, { method: "HEAD", body: { contains: "x" } }, opts),
    ).toThrow(/^body: /);
  });
});

describe("probeHttp over TLS with an IP literal as host", () => {
  const ca = makeCa("probes-ipv6-ca");
  const cert = ca.issue({ commonName: "fd00::10", altNames: ["fd00::10", "10.0.0.7"] });

  it.each([
    ["fd00::10", "[fd00::10]"],
    ["[fd00::10]", "[fd00::10]"],
    ["[fd00::10]:8443", "[fd00::10]:8443"],
    ["10.0.0.7:8443", "10.0.0.7:8443"],
  ])("host %s: no SNI, the certificate checked for the IP, Host header %s", async (host, header) => {
    const server = await startHttpServer(HOST, (_req, res) => res.end("ok"), {
      cert: cert.certPem,
      key: cert.keyPem,
    });
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem, host },
      opts,
    );
    expect(result).toMatchObject({ ok: true });
    expect(server.servernames).toEqual([false]);
    expect(server.requests[0]?.headers.host).toBe(header);
  });
});
