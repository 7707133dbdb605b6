import { describe, expect, it } from "vitest";
import { ProbeConfigError, probeBySpec } from "../src/index.js";
import { startHttpServer, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";

describe("probeBySpec", () => {
  it("runs a TCP probe from a spec", async () => {
    const server = await startTcpServer(HOST);
    const result = await probeBySpec(
      { host: HOST, port: server.port },
      { mode: "TCP", timeoutSeconds: 10, tcp: { targetPort: "db" } },
    );
    expect(result).toMatchObject({ ok: true });
  });

  it("runs an HTTP probe with the spec's path, method and codes; the given port wins over targetPort", async () => {
    const server = await startHttpServer(HOST, (_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    const result = await probeBySpec(
      { host: HOST, port: server.port },
      {
        mode: "HTTP",
        timeoutSeconds: 10,
        http: { targetPort: 1, path: "/live", method: "HEAD", code: [500] },
      },
    );
    expect(result).toMatchObject({ ok: true });
    expect(server.requests).toMatchObject([{ method: "HEAD", url: "/live" }]);
  });

  it("throws ProbeConfigError for a PostgreSQL probe without credentials (finding them is the caller's job)", () => {
    const run = () =>
      probeBySpec({ host: HOST, port: 5432 }, { mode: "PostgreSQL", postgreSQL: { targetPort: 5432 } });
    expect(run).toThrow(ProbeConfigError);
    expect(run).toThrow(/^postgresCredentials: /);
  });

  it("throws ProbeConfigError naming the missing sub-object", () => {
    expect(() => probeBySpec({ host: HOST, port: 80 }, { mode: "HTTP" })).toThrow(ProbeConfigError);
    expect(() => probeBySpec({ host: HOST, port: 80 }, { mode: "HTTP" })).toThrow("http");
  });

  it.each([["UDP"], [7], [null]])(
    "fails a probe of unknown mode %j with UnsupportedMode instead of throwing",
    async (mode) => {
      const spec = { mode, udp: { port: 9090 } } as unknown as Parameters<typeof probeBySpec>[1];
      const result = await probeBySpec({ host: HOST, port: 9090 }, spec);
      expect(result).toMatchObject({ ok: false, reason: "UnsupportedMode" });
      expect(result.message).toContain("not supported");
    },
  );
});
