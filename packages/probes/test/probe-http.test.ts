import { getEventListeners } from "node:events";
import { makeCa } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { ProbeConfigError, probeHttp } from "../src/index.js";
import { closedPort, startHttpServer, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** A deadline no exchange on loopback needs, however loaded the machine: no test here expects a Timeout. */
const opts = { timeoutMs: 10_000 };

describe("probeHttp", () => {
  it("sends GET with path, Host and custom headers, and passes on 200", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end("ok"));
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { path: "/healthz?full=1", httpHeaders: [{ name: "X-Probe", value: "yes" }] },
      opts,
    );
    expect(result).toMatchObject({ ok: true, message: "HTTP 200 OK" });
    expect(server.requests).toMatchObject([
      {
        method: "GET",
        url: "/healthz?full=1",
        headers: { host: `${HOST}:${server.port}`, "x-probe": "yes" },
      },
    ]);
  });

  it("uses host only as the Host header while connecting to the given address", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end());
    await probeHttp({ host: HOST, port: server.port }, { host: "api.example.test", method: "HEAD" }, opts);
    expect(server.requests).toMatchObject([{ method: "HEAD", headers: { host: "api.example.test" } }]);
  });

  it.each([
    { status: 200, code: undefined, ok: true },
    { status: 399, code: undefined, ok: true },
    { status: 404, code: undefined, ok: false },
    { status: 503, code: undefined, ok: false },
    { status: 200, code: [204], ok: false },
    { status: 418, code: [418], ok: true },
  ])("status $status with accepted codes $code → ok=$ok", async ({ status, code, ok }) => {
    const server = await startHttpServer(HOST, (_req, res) => {
      res.statusCode = status;
      res.end("body");
    });
    const result = await probeHttp({ host: HOST, port: server.port }, code ? { code } : {}, opts);
    expect(result.ok).toBe(ok);
    if (!ok) expect(result).toMatchObject({ reason: "HTTPStatus" });
  });

  it("never follows a redirect", async () => {
    const elsewhere = await startHttpServer(HOST, (_req, res) => res.end());
    const server = await startHttpServer(HOST, (_req, res) => {
      res.writeHead(302, { location: `http://${HOST}:${elsewhere.port}/` }).end();
    });
    const redirectRejected = await probeHttp({ host: HOST, port: server.port }, { code: [200] }, opts);
    expect(redirectRejected).toMatchObject({
      ok: false,
      reason: "HTTPStatus",
      message: expect.stringContaining("302"),
    });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("opens a fresh connection for every probe", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end());
    for (let i = 0; i < 3; i++) await probeHttp({ host: HOST, port: server.port }, {}, opts);
    expect(server.connections()).toBe(3);
  });

  it("drops a large body after a small cap and still judges the status", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(Buffer.alloc(8 * 1024 * 1024, "x")));
    expect(await probeHttp({ host: HOST, port: server.port }, {}, opts)).toMatchObject({ ok: true });
  });

  it("reports ConnectionRefused for a closed port", async () => {
    const result = await probeHttp({ host: HOST, port: await closedPort(HOST) }, {}, opts);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it.each([
    [{ path: "healthz" }, "path"],
    [{ path: "/a b" }, "path"],
    [{ httpHeaders: [{ name: "X-A", value: "1\r\nEvil: 1" }] }, "httpHeaders[0].value"],
    [{ httpHeaders: [{ name: "Bad Name", value: "1" }] }, "httpHeaders[0].name"],
    [{ method: "POST" as "GET" }, "method"],
  ])("rejects invalid config %j naming %s", (config, field) => {
    expect(() => probeHttp({ host: HOST, port: 80 }, config, opts)).toThrow(ProbeConfigError);
    expect(() => probeHttp({ host: HOST, port: 80 }, config, opts)).toThrow(field);
  });
});

describe("probeHttp over TLS", () => {
  const ca = makeCa("probes-test-ca");
  const ipCert = ca.issue({ commonName: HOST, altNames: [HOST] });
  const nameCert = ca.issue({ commonName: "api.example.test" });
  const https = (pair: { certPem: string; keyPem: string }) =>
    startHttpServer(HOST, (_req, res) => res.end("ok"), { cert: pair.certPem, key: pair.keyPem });

  it("verifies the certificate against caCert and the IP when no host is set", async () => {
    const server = await https(ipCert);
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem },
      opts,
    );
    expect(result).toMatchObject({ ok: true });
  });

  it("fails with TLSError for a certificate from an unknown CA (system roots)", async () => {
    const server = await https(ipCert);
    const result = await probeHttp({ host: HOST, port: server.port }, { scheme: "HTTPS" }, opts);
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
  });

  it("accepts any certificate with insecureSkipTLSVerify", async () => {
    const server = await https(nameCert);
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", insecureSkipTLSVerify: true },
      opts,
    );
    expect(result).toMatchObject({ ok: true });
  });

  it("uses host as TLS server name and checks the certificate against it", async () => {
    const server = await https(nameCert);
    const good = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem, host: "api.example.test" },
      opts,
    );
    expect(good).toMatchObject({ ok: true });
    expect(server.servernames).toEqual(["api.example.test"]);
    expect(server.requests[0]?.headers.host).toBe("api.example.test");
    const wrongName = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem, host: "other.example.test" },
      opts,
    );
    expect(wrongName).toMatchObject({ ok: false, reason: "TLSError" });
  });

  it("fails with TLSError when the certificate does not name the IP", async () => {
    const server = await https(nameCert);
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { scheme: "HTTPS", caCert: ca.certPem },
      opts,
    );
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
  });

  it("ends at once when cancelled mid-exchange, closes the connection and stops listening to the signal", async () => {
    let accepted!: () => void;
    const connected = new Promise<void>((resolve) => {
      accepted = resolve;
    });
    let closed!: () => void;
    const sawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    // Accepts and reads the request, never answers.
    const server = await startTcpServer(HOST, (socket) => {
      socket.resume();
      socket.on("close", closed);
      accepted();
    });
    const controller = new AbortController();
    const { signal } = controller;
    const probe = probeHttp({ host: HOST, port: server.port }, {}, { ...opts, signal });
    await connected;
    expect(getEventListeners(signal, "abort")).toHaveLength(1);
    controller.abort();
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Error" });
    expect(result.message).toMatch(/cancelled while (connecting|waiting for response headers)/);
    await sawClose;
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});
