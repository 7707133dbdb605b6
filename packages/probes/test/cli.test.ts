import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cli, cliWith, JSON_OUTPUT, TIMEOUT } from "./helpers/cli.js";
import { closedPort, startHttpServer, startTcpServer } from "./helpers/servers.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("swh-probe CLI", () => {
  it("http: exit 0 and one JSON line on success with --output json", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.end());
    const { code, out } = await cli(
      "http",
      `127.0.0.1:${server.port}`,
      "--path",
      "/healthz",
      "--header",
      "X-A: 1",
      ...JSON_OUTPUT,
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
    const target = `127.0.0.1:${await closedPort("127.0.0.1")}`;
    const { code, out } = await cli("tcp", target, ...JSON_OUTPUT, ...TIMEOUT);
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
    expect(help.out.join("\n")).toMatch(/--timeout DURATION +.*\(default: 1s\)/);
    expect(help.out.join("\n")).toMatch(/--tls-mode MODE +.*\(default: SkipVerification\)/);
    const version = await cli("tcp", "--version");
    expect(version.code).toBe(0);
    expect(version.out).toEqual([`swh-probe ${pkg.version}`]);
  });

  it("keeps the address after a boolean flag, and reads every repeated header", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.end());
    const { code } = await cli(
      "http",
      "--verbose",
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
    [["http", "bad_name:80"], "neither an IP address nor a DNS name"],
    [["http", "1.2.3.4:0"], "port must be 1..65535"],
    [["http", "1.2.3.4:80", "--timeout", "5x"], '--timeout: "5x" is not a duration'],
    [["http", "1.2.3.4:80", "--timeout", "0.1ms"], "--timeout must be at least 1ms"],
    [["http", "1.2.3.4:80", "--output", "yaml"], "--output must be text or json"],
    [["http", "1.2.3.4:80", "--method", "HEAD", "--body-contains", "ok"], "need --method GET"],
    [["http", "1.2.3.4:80", "--method", "PUT"], "--method"],
    [["postgres", "1.2.3.4:5432"], "--user is required"],
    [["http", "1.2.3.4:80", "--bogus"], "bogus"],
    [["http", "1.2.3.4:80", "--https=maybe"], "--https must be true or false"],
    [["tcp", "1.2.3.4:80", "--send", "PING\\x"], "--send: unknown escape \\x"],
    [["http", "1.2.3.4:80", "--expect-header", "nocolon"], "--expect-header must be 'Name: value'"],
  ])("usage error for %j → exit 2", async (argv, message) => {
    const { code, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(err.join("\n")).toContain(message);
  });

  it("takes durations with units", async () => {
    const server = await startTcpServer("127.0.0.1");
    for (const timeout of ["5s", "5000ms", "1m"])
      expect((await cli("tcp", `127.0.0.1:${server.port}`, "--timeout", timeout)).code).toBe(0);
  });

  it("resolves a host name itself, probes its address and sends the name as Host", async () => {
    const server = await startHttpServer("localhost", (_req, res) => res.end("ready"));
    const { code, out } = await cli("http", `localhost:${server.port}`, ...JSON_OUTPUT, ...TIMEOUT);
    expect(code).toBe(0);
    expect(JSON.parse(out[0] as string)).toMatchObject({
      ok: true,
      target: `localhost:${server.port}`,
      address: expect.stringMatching(new RegExp(`^(127\\.0\\.0\\.1|\\[::1\\]):${server.port}$`)),
    });
    expect(server.requests[0]?.headers.host).toBe(`localhost:${server.port}`);
  });

  it("fails with DNSError (exit 1) when the name does not resolve", async () => {
    const lookup = () =>
      Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), { code: "ENOTFOUND" }));
    const { code, out } = await cliWith({ lookup }, "tcp", "nowhere.test:80", ...JSON_OUTPUT);
    expect(code).toBe(1);
    expect(JSON.parse(out[0] as string)).toMatchObject({ ok: false, reason: "DNSError" });
  });

  it("prints text unless --output json says otherwise", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.writeHead(503).end());
    const target = `127.0.0.1:${server.port}`;
    const byDefault = await cli("http", target, ...TIMEOUT);
    expect(byDefault.code).toBe(1);
    expect(byDefault.out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^FAIL http ${target}: HTTPStatus: HTTP 503 Service Unavailable is not an accepted status in [\\d.]+ ms$`,
        ),
      ),
    ]);
    const text = await cli("http", target, "--output", "text", ...TIMEOUT);
    expect(text.out).toEqual([expect.stringMatching(/^FAIL http .*: HTTPStatus: /)]);
    const json = await cli("http", target, ...JSON_OUTPUT, ...TIMEOUT);
    expect(JSON.parse(json.out[0] as string)).toMatchObject({ ok: false, reason: "HTTPStatus" });
  });

  it("matches the body with --body-contains and --body-not-contains", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => res.end('{"status":"UP"}'));
    const target = `127.0.0.1:${server.port}`;
    expect((await cli("http", target, "--body-contains", "UP", ...TIMEOUT)).code).toBe(0);
    const down = await cli("http", target, "--body-not-contains", "UP", ...JSON_OUTPUT, ...TIMEOUT);
    expect(down.code).toBe(1);
    expect(JSON.parse(down.out[0] as string)).toMatchObject({ reason: "HTTPBody" });
  });

  it("tcp: --send and --expect with \\r\\n escapes speak a line protocol", async () => {
    let received = "";
    const server = await startTcpServer("127.0.0.1", (socket) => {
      received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        if (received === "PING\r\n") socket.end("+PONG\r\n");
      });
    });
    const target = `127.0.0.1:${server.port}`;
    expect(
      (await cli("tcp", target, "--send", "PING\\r\\n", "--expect", "+PONG\\r\\n", ...TIMEOUT)).code,
    ).toBe(0);
    expect(received).toBe("PING\r\n");
    const wrong = await cli(
      "tcp",
      target,
      "--send",
      "PING\\r\\n",
      "--expect",
      "master",
      ...JSON_OUTPUT,
      ...TIMEOUT,
    );
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.out[0] as string)).toMatchObject({ ok: false, reason: "TCPResponse" });
  });

  it("http: --expect-header requires the response header's value", async () => {
    const server = await startHttpServer("127.0.0.1", (_req, res) => {
      res.setHeader("X-Pod-Name", "web-0");
      res.end();
    });
    const target = `127.0.0.1:${server.port}`;
    expect((await cli("http", target, "--expect-header", "X-Pod-Name: web-0", ...TIMEOUT)).code).toBe(0);
    const other = await cli(
      "http",
      target,
      "--expect-header",
      "X-Pod-Name: web-1",
      ...JSON_OUTPUT,
      ...TIMEOUT,
    );
    expect(other.code).toBe(1);
    expect(JSON.parse(other.out[0] as string)).toMatchObject({ reason: "HTTPHeader" });
  });

  it("exits 3, not 1, on an internal error", async () => {
    const server = await startTcpServer("127.0.0.1");
    const { code, err } = await cliWith(
      {
        out: () => {
          throw new Error("stdout is gone");
        },
      },
      "tcp",
      `127.0.0.1:${server.port}`,
      ...TIMEOUT,
    );
    expect(code).toBe(3);
    expect(err.join("\n")).toContain("internal error: Error: stdout is gone");
  });
});
