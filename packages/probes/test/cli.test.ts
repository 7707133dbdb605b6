import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { closedPort, startHttpServer, startTcpServer } from "./helpers/servers.js";

/** A deadline no probe on loopback needs, however loaded the machine: no test here expects a Timeout. */
const TIMEOUT = ["--timeout", "10000"];

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out, err };
}

describe("swh-probe CLI", () => {
  it("http: exit 0 and one JSON line on success", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.end());
    const { code, out } = await cli(
      "http",
      `127.0.0.1:${server.port}`,
      "--path",
      "/healthz",
      "--header",
      "X-A: 1",
      ...TIMEOUT,
    );
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0] as string)).toMatchObject({
      ok: true,
      kind: "http",
      target: `127.0.0.1:${server.port}`,
    });
    expect(server.requests).toMatchObject([{ url: "/healthz", headers: { "x-a": "1" } }]);
  });

  it("tcp: exit 1 with the reason when the probe fails", async () => {
    const { code, out } = await cli("tcp", `127.0.0.1:${await closedPort("127.0.0.1")}`, ...TIMEOUT);
    expect(code).toBe(1);
    expect(JSON.parse(out[0] as string)).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it("tcp: exit 0 against a listener", async () => {
    const server = await startTcpServer("127.0.0.1");
    expect((await cli("tcp", `127.0.0.1:${server.port}`, ...TIMEOUT)).code).toBe(0);
  });

  it("--help prints every flag with its default; --version the package's version; both exit 0", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.out.join("\n")).toMatch(/^usage: swh-probe /);
    expect(help.out.join("\n")).toMatch(/--timeout MS +.*\(default: 1000\)/);
    expect(help.out.join("\n")).toMatch(/--tls-mode MODE +.*\(default: SkipVerification\)/);
    const version = await cli("tcp", "--version");
    expect(version.code).toBe(0);
    expect(version.out).toEqual([`swh-probe ${pkg.version}`]);
  });

  it("keeps the address after a boolean flag, and reads every repeated header", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.end());
    const { code } = await cli(
      "http",
      "--insecure",
      `127.0.0.1:${server.port}`,
      "--header",
      "X-A: 1",
      "--header=X-B: 2",
      ...TIMEOUT,
    );
    expect(code).toBe(0);
    expect(server.requests[0]?.headers).toMatchObject({ "x-a": "1", "x-b": "2" });
  });

  it.each([
    [["http"], "expected a probe kind and one address"],
    [["udp", "1.2.3.4:5"], "unknown probe kind"],
    [["http", "1.2.3.4"], "address must be"],
    [["http", "example.com:80"], "host: must be an IP address"],
    [["http", "1.2.3.4:80", "--method", "PUT"], "--method"],
    [["postgres", "1.2.3.4:5432"], "--user is required"],
    [["http", "1.2.3.4:80", "--bogus"], "bogus"],
    [["http", "1.2.3.4:80", "--https=maybe"], "--https must be true or false"],
  ])("usage error for %j → exit 2", async (argv, message) => {
    const { code, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(err.join("\n")).toContain(message);
  });
});
