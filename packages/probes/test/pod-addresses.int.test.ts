/** Probes against listeners on pod-like addresses (IPv4 and IPv6) inside the test network namespace. */
import { describe, expect, it } from "vitest";
import { probeHttp, probeTcp } from "../src/index.js";
import { closedPort, startHttpServer, startTcpServer } from "./helpers/servers.js";

/** A deadline no exchange inside the namespace needs, however loaded the machine: no test here expects a Timeout. */
const opts = { timeoutMs: 10_000 };

describe.each([
  { family: "IPv4", host: "10.244.7.5" },
  { family: "IPv6", host: "fd00:10:244::7:5" },
])("$family pod address", ({ host }) => {
  it("HTTP reaches exactly the given address and sends a bracketed Host for IPv6", async () => {
    const server = await startHttpServer(host, (_req, res) => res.end());
    const result = await probeHttp({ host, port: server.port }, { path: "/ready" }, opts);
    expect(result).toMatchObject({ ok: true });
    const expectedHost = host.includes(":") ? `[${host}]:${server.port}` : `${host}:${server.port}`;
    expect(server.requests).toMatchObject([{ url: "/ready", headers: { host: expectedHost } }]);
  });

  it("TCP passes against a listener and fails refused on a free port", async () => {
    const server = await startTcpServer(host);
    expect(await probeTcp({ host, port: server.port }, opts)).toMatchObject({ ok: true });
    expect(await probeTcp({ host, port: await closedPort(host) }, opts)).toMatchObject({
      ok: false,
      reason: "ConnectionRefused",
    });
  });

  it("HTTP does not reach a server on another address of the same port", async () => {
    const other = await startHttpServer(
      host === "10.244.7.5" ? "10.244.7.6" : "fd00:10:244::7:6",
      (_req, res) => res.end(),
    );
    const result = await probeHttp({ host, port: other.port }, { host: "10.244.7.6" }, opts);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
    expect(other.requests).toHaveLength(0);
  });
});
