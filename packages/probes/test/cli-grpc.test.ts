/** `swh-probe grpc`: the CLI against real grpc-js servers running the reference health service. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCa } from "@swh/testenv";
import { afterAll, describe, expect, it } from "vitest";
import { cli, JSON_OUTPUT, TIMEOUT } from "./helpers/cli.js";
import { startHealthServer, startScriptedHealthServer } from "./helpers/grpc-servers.js";

const HOST = "127.0.0.1";

describe("swh-probe grpc", () => {
  it("exits 0 when the server is SERVING, and prints one JSON line when asked", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING" });
    const { code, out } = await cli("grpc", `${HOST}:${port}`, ...JSON_OUTPUT, ...TIMEOUT);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0] as string)).toMatchObject({
      kind: "grpc",
      target: `${HOST}:${port}`,
      ok: true,
      message: "SERVING",
    });
  });

  it("exits 1 with reason GRPCNotServing when the service is NOT_SERVING", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING", orders: "NOT_SERVING" });
    const { code, out } = await cli(
      "grpc",
      `${HOST}:${port}`,
      "--service",
      "orders",
      "--output",
      "json",
      ...TIMEOUT,
    );
    expect(code).toBe(1);
    expect(JSON.parse(out[0] as string)).toMatchObject({ kind: "grpc", ok: false, reason: "GRPCNotServing" });
  });

  it("checks the service named by --service, and prints text", async () => {
    const { port, health } = await startHealthServer(HOST, { orders: "SERVING" });
    const target = `${HOST}:${port}`;
    const serving = await cli("grpc", target, "--service", "orders", "--output", "text", ...TIMEOUT);
    expect(serving.code).toBe(0);
    expect(serving.out).toEqual([
      expect.stringMatching(new RegExp(`^PASS grpc ${target}: SERVING in [\\d.]+ ms$`)),
    ]);
    health.setStatus("orders", "NOT_SERVING");
    const down = await cli("grpc", target, "--service", "orders", "--output", "text", ...TIMEOUT);
    expect(down.code).toBe(1);
    expect(down.out).toEqual([
      expect.stringMatching(new RegExp(`^FAIL grpc ${target}: GRPCNotServing: NOT_SERVING in [\\d.]+ ms$`)),
    ]);
    const unknown = await cli("grpc", target, "--service", "billing", ...JSON_OUTPUT, ...TIMEOUT);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.out[0] as string)).toMatchObject({ reason: "GRPCServiceUnknown" });
  });

  it("resolves a host name itself and sends name:port as the :authority, unless --host says otherwise", async () => {
    const seen: { service: string; authority: string }[] = [];
    const port = await startScriptedHealthServer("localhost", { status: 1 }, seen);
    const byName = await cli("grpc", `localhost:${port}`, "--service", "orders", ...JSON_OUTPUT, ...TIMEOUT);
    expect(byName.code).toBe(0);
    expect(JSON.parse(byName.out[0] as string)).toMatchObject({
      ok: true,
      target: `localhost:${port}`,
      address: expect.stringMatching(new RegExp(`^(127\\.0\\.0\\.1|\\[::1\\]):${port}$`)),
    });
    const overridden = await cli("grpc", `localhost:${port}`, "--host", "orders.internal", ...TIMEOUT);
    expect(overridden.code).toBe(0);
    expect(seen).toEqual([
      { service: "orders", authority: `localhost:${port}` },
      { service: "", authority: "orders.internal" },
    ]);
  });

  describe("over TLS", () => {
    const ca = makeCa("probes-cli-grpc-test-ca");
    const nameCert = ca.issue({ commonName: "orders.example.test" });
    const dir = mkdtempSync(join(tmpdir(), "swh-probe-cli-grpc-"));
    const caFile = join(dir, "ca.pem");
    writeFileSync(caFile, ca.certPem);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("verifies the server's certificate against --ca and the name in --host", async () => {
      const { port } = await startHealthServer(HOST, { "": "SERVING" }, nameCert);
      const target = `${HOST}:${port}`;
      const good = await cli(
        "grpc",
        target,
        "--tls",
        "--ca",
        caFile,
        "--host",
        "orders.example.test",
        ...TIMEOUT,
      );
      expect(good.code).toBe(0);
      const wrongName = await cli(
        "grpc",
        target,
        "--tls",
        "--ca",
        caFile,
        "--host",
        "billing.example.test",
        ...JSON_OUTPUT,
        ...TIMEOUT,
      );
      expect(wrongName.code).toBe(1);
      expect(JSON.parse(wrongName.out[0] as string)).toMatchObject({ reason: "TLSError" });
    });

    it("fails with TLSError for an unknown CA, passes with --insecure, and fails without --tls", async () => {
      const { port } = await startHealthServer(HOST, { "": "SERVING" }, nameCert);
      const target = `${HOST}:${port}`;
      const unknownCa = await cli("grpc", target, "--tls", ...JSON_OUTPUT, ...TIMEOUT);
      expect(unknownCa.code).toBe(1);
      expect(JSON.parse(unknownCa.out[0] as string)).toMatchObject({ reason: "TLSError" });
      expect((await cli("grpc", target, "--tls", "--insecure", ...TIMEOUT)).code).toBe(0);
      expect((await cli("grpc", target, ...TIMEOUT)).code).toBe(1);
    });
  });

  it.each([
    [["grpc", "127.0.0.1"], "address must be"],
    [["grpc", "127.0.0.1:50051", "--tls=maybe"], "--tls must be true or false"],
    [["grpc", "127.0.0.1:50051", "--timeout", "1h2x"], '--timeout: "1h2x" is not a duration'],
    [["grpc", "127.0.0.1:50051", "--insecure"], "--insecure needs --tls"],
    [["grpc", "127.0.0.1:50051", "--https"], "--https does not apply to grpc probes (only to http)"],
    [
      ["grpc", "127.0.0.1:50051", "--host", "a b"],
      '--host must be a host name or [IPv6 address], optionally with :port, got "a b"',
    ],
    [["grpc", "127.0.0.1:50051", "--tls", "--ca", "/nonexistent/ca.pem"], "--ca: ENOENT"],
    [["grpc", "127.0.0.1:50051", "--service"], "--service needs a value"],
  ])("usage error for %j → exit 2 and one line", async (argv, message) => {
    const { code, out, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toEqual([expect.stringMatching(/^swh-probe: .* \(try --help\)$/)]);
    expect(err[0]).toContain(message);
  });

  it("takes durations with units", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING" });
    for (const timeout of ["5s", "1500ms", "1m"])
      expect((await cli("grpc", `${HOST}:${port}`, "--timeout", timeout)).code).toBe(0);
  });
});
