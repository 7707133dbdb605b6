/**
 * probeGrpc against real gRPC servers (`@grpc/grpc-js` with the reference health service of grpc-health-check,
 * or a grpc-js server whose Check answers what the test scripts): each answer a user can meet gives its own
 * reason. Hostile HTTP/2 targets are in grpc-hostile-targets.test.ts.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { status as grpcStatus } from "@grpc/grpc-js";
import { makeCa } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { ProbeConfigError, probeBySpec, probeGrpc } from "../src/index.js";
import {
  startHealthServer,
  startScriptedHealthServer,
  startServerWithoutHealth,
} from "./helpers/grpc-servers.js";
import { closedPort, startHttpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** A deadline no exchange on loopback needs, however loaded the machine: no test here expects a Timeout. */
const opts = { timeoutMs: 10_000 };

describe("probeGrpc against the reference health service", () => {
  it("passes while the service is SERVING and fails with GRPCNotServing once it is NOT_SERVING", async () => {
    const server = await startHealthServer(HOST, { "shop.v1.Orders": "SERVING" });
    const target = { host: HOST, port: server.port };
    expect(await probeGrpc(target, { service: "shop.v1.Orders" }, opts)).toMatchObject({
      ok: true,
      message: "SERVING",
    });
    server.health.setStatus("shop.v1.Orders", "NOT_SERVING");
    expect(await probeGrpc(target, { service: "shop.v1.Orders" }, opts)).toMatchObject({
      ok: false,
      reason: "GRPCNotServing",
      message: "NOT_SERVING",
    });
  });

  it("asks about the whole server when no service is given", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING", "shop.v1.Orders": "NOT_SERVING" });
    expect(await probeGrpc({ host: HOST, port: server.port }, {}, opts)).toMatchObject({ ok: true });
  });

  it("fails a service the server does not know with GRPCServiceUnknown (NOT_FOUND)", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING" });
    const result = await probeGrpc({ host: HOST, port: server.port }, { service: "nope.v1.Missing" }, opts);
    expect(result).toMatchObject({ ok: false, reason: "GRPCServiceUnknown" });
    expect(result.message).toContain("NOT_FOUND");
  });

  it("fails with GRPCStatusUnknown when the service reports UNKNOWN", async () => {
    const server = await startHealthServer(HOST, { "shop.v1.Orders": "UNKNOWN" });
    expect(
      await probeGrpc({ host: HOST, port: server.port }, { service: "shop.v1.Orders" }, opts),
    ).toMatchObject({
      ok: false,
      reason: "GRPCStatusUnknown",
    });
  });

  it("probes an IPv6 address, with the bracketed address as :authority", async () => {
    const seen: { service: string; authority: string }[] = [];
    const port = await startScriptedHealthServer("::1", { status: 1 }, seen);
    expect(await probeGrpc({ host: "::1", port }, {}, opts)).toMatchObject({ ok: true });
    expect(seen).toEqual([{ service: "", authority: `[::1]:${port}` }]);
  });

  it("runs through probeBySpec with the grpc sub-object", async () => {
    const server = await startHealthServer(HOST, { "shop.v1.Orders": "NOT_SERVING" });
    const result = await probeBySpec(
      { host: HOST, port: server.port },
      { mode: "GRPC", timeoutSeconds: 10, grpc: { targetPort: server.port, service: "shop.v1.Orders" } },
    );
    expect(result).toMatchObject({ ok: false, reason: "GRPCNotServing" });
  });
});

describe("probeGrpc: each other answer has its own reason", () => {
  it.each([
    [{ status: 3 }, "GRPCServiceUnknown", "SERVICE_UNKNOWN"],
    [{ status: 0 }, "GRPCStatusUnknown", "UNKNOWN"],
    [{ status: 9 }, "GRPCStatusUnknown", "serving status 9"],
    [{ code: grpcStatus.UNAVAILABLE, details: "draining" }, "GRPCError", "UNAVAILABLE: draining"],
    [{ code: grpcStatus.PERMISSION_DENIED, details: "no" }, "GRPCError", "PERMISSION_DENIED: no"],
  ] as const)("%j → %s", async (answer, reason, message) => {
    const port = await startScriptedHealthServer(HOST, answer);
    const result = await probeGrpc({ host: HOST, port }, {}, opts);
    expect(result).toMatchObject({ ok: false, reason });
    expect(result.message).toContain(message);
  });

  it("a gRPC server without a health service → GRPCUnimplemented", async () => {
    const port = await startServerWithoutHealth(HOST);
    expect(await probeGrpc({ host: HOST, port }, {}, opts)).toMatchObject({
      ok: false,
      reason: "GRPCUnimplemented",
    });
  });

  it("an HTTP/1.1 server → ProtocolError (not a gRPC server)", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end("ok"));
    const result = await probeGrpc({ host: HOST, port: server.port }, {}, opts);
    expect(result.ok).toBe(false);
    expect(result.reason).toBe("ProtocolError");
  });

  it("nothing listening → ConnectionRefused", async () => {
    expect(await probeGrpc({ host: HOST, port: await closedPort(HOST) }, {}, opts)).toMatchObject({
      ok: false,
      reason: "ConnectionRefused",
    });
  });

  it("sends the service name and uses host only as :authority while connecting to the given address", async () => {
    const seen: { service: string; authority: string }[] = [];
    const port = await startScriptedHealthServer(HOST, { status: 1 }, seen);
    const result = await probeGrpc(
      { host: HOST, port },
      { service: "shop.v1.Orders", host: "orders.internal" },
      opts,
    );
    expect(result.ok).toBe(true);
    expect(seen).toEqual([{ service: "shop.v1.Orders", authority: "orders.internal" }]);
  });

  it.each([
    [{ host: "a b" }, "host"],
    [{ host: "[bad" }, "host"],
    [{ host: "user@orders.internal" }, "host"],
    [{ host: "orders.internal/path" }, "host"],
  ])("rejects invalid config %j naming %s", (config, field) => {
    expect(() => probeGrpc({ host: HOST, port: 80 }, config, opts)).toThrow(ProbeConfigError);
    expect(() => probeGrpc({ host: HOST, port: 80 }, config, opts)).toThrow(field);
  });

  it("refuses a name instead of an IP address", () => {
    expect(() => probeGrpc({ host: "localhost", port: 80 }, {}, opts)).toThrow(ProbeConfigError);
  });
});

describe("probeGrpc over TLS", () => {
  const ca = makeCa("probes-grpc-test-ca");
  const ipCert = ca.issue({ commonName: HOST, altNames: [HOST] });
  const nameCert = ca.issue({ commonName: "orders.example.test" });

  it("verifies the certificate against caCert and the IP when no host is set", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING" }, ipCert);
    expect(
      await probeGrpc({ host: HOST, port: server.port }, { tls: true, caCert: ca.certPem }, opts),
    ).toMatchObject({ ok: true });
  });

  it("verifies the name against host", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING" }, nameCert);
    const target = { host: HOST, port: server.port };
    expect(
      await probeGrpc(target, { tls: true, caCert: ca.certPem, host: "orders.example.test" }, opts),
    ).toMatchObject({ ok: true });
    expect(await probeGrpc(target, { tls: true, caCert: ca.certPem }, opts)).toMatchObject({
      ok: false,
      reason: "TLSError",
    });
  });

  it("fails with TLSError for a certificate from an unknown CA, and accepts it with insecureSkipTLSVerify", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING" }, ipCert);
    const target = { host: HOST, port: server.port };
    expect(await probeGrpc(target, { tls: true }, opts)).toMatchObject({ ok: false, reason: "TLSError" });
    expect(await probeGrpc(target, { tls: true, insecureSkipTLSVerify: true }, opts)).toMatchObject({
      ok: true,
    });
  });

  it("a plaintext probe of a TLS server fails without passing", async () => {
    const server = await startHealthServer(HOST, { "": "SERVING" }, ipCert);
    const result = await probeGrpc({ host: HOST, port: server.port }, {}, opts);
    expect(result.ok).toBe(false);
  });

  it("an HTTPS server that refuses HTTP/2 → TLSError (its alert names the missing application protocol)", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end("ok"), {
      cert: ipCert.certPem,
      key: ipCert.keyPem,
    });
    const result = await probeGrpc(
      { host: HOST, port: server.port },
      { tls: true, caCert: ca.certPem },
      opts,
    );
    expect(result).toMatchObject({ ok: false, reason: "TLSError" });
    expect(result.message).toMatch(/application protocol/i);
  });

  it("a TLS server that ignores ALPN → ProtocolError (not a gRPC server)", async () => {
    const server = createTlsServer({ cert: ipCert.certPem, key: ipCert.keyPem }, (socket) => {
      socket.on("error", () => {});
      socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    });
    server.listen(0, HOST);
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const result = await probeGrpc({ host: HOST, port }, { tls: true, caCert: ca.certPem }, opts);
      expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
      expect(result.message).toContain("ALPN");
    } finally {
      server.close();
    }
  });
});
