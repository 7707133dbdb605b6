/**
 * `swh-probe` in scripts (issue 32, point 6; ADR 0042): text unless `--output json`, every outcome on one line with
 * its reason code, a bare number is no duration, flags of another kind are errors, a usage error is one line that
 * points to --help, and `-v` prints when each phase was reached — against real listeners, TLS ones included.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCa } from "@swh/testenv";
import { afterAll, describe, expect, it } from "vitest";
import { cli, JSON_OUTPUT, TIMEOUT } from "./helpers/cli.js";
import { startHttpServer, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
const ca = makeCa("probes-cli-scripts-test-ca");
const cert = ca.issue({ commonName: HOST, altNames: [HOST] });
const dir = mkdtempSync(join(tmpdir(), "swh-probe-cli-scripts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const caFile = join(dir, "ca.pem");
writeFileSync(caFile, ca.certPem);

/** A self-signed server certificate for the loopback address (makeCa's leaves have an issuer; its CA may not serve). */
function selfSigned(): { cert: string; key: string } {
  const [cert, key] = [join(dir, "self.crt"), join(dir, "self.key")];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-subj",
      `/CN=${HOST}`,
      "-addext",
      `subjectAltName=IP:${HOST}`,
      "-days",
      "1",
    ],
    { stdio: "ignore" },
  );
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}

/** A usage error as the user sees it: exit 2, nothing on stdout, one line on stderr ending with the --help hint. */
async function usageError(...argv: string[]): Promise<string> {
  const { code, out, err } = await cli(...argv);
  expect(code).toBe(2);
  expect(out).toEqual([]);
  expect(err).toHaveLength(1);
  expect(err[0]).toMatch(/^swh-probe: .+ \(try --help\)$/);
  return err[0] as string;
}

/** A TLS failure in both outputs: one text line `FAIL … TLSError: <message> in N ms`, and the same message in JSON. */
async function tlsFailure(...argv: string[]): Promise<string> {
  const text = await cli(...argv, ...TIMEOUT);
  expect(text.code).toBe(1);
  expect(text.out).toHaveLength(1);
  const match = /^FAIL http \S+: TLSError: (.+) in [\d.]+ ms$/.exec(text.out[0] as string);
  expect(match, text.out[0]).not.toBeNull();
  const message = match?.[1] as string;
  expect(message).not.toMatch(/[\r\n]|openssl|\.c:\d+|error:[0-9A-F]{8}/);
  const json = await cli(...argv, ...JSON_OUTPUT, ...TIMEOUT);
  expect(JSON.parse(json.out[0] as string)).toMatchObject({ ok: false, reason: "TLSError", message });
  return message;
}

describe("swh-probe: every failure on one line with its reason code", () => {
  it("a self-signed certificate: the verification error, without Node's advice for its own users", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(), selfSigned());
    const message = await tlsFailure("http", `${HOST}:${server.port}`, "--https");
    expect(message).toBe("DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate");
  });

  it("--https to a server that does not speak TLS: OpenSSL's reason, not its source file", async () => {
    const server = await startTcpServer(HOST, (socket) => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"));
    const message = await tlsFailure("http", `${HOST}:${server.port}`, "--https", "--ca", caFile);
    expect(message).toBe("ERR_SSL_WRONG_VERSION_NUMBER: wrong version number");
  });

  it("a server that demands a client certificate: the alert it sent", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(), {
      cert: cert.certPem,
      key: cert.keyPem,
      requestCert: true,
      ca: ca.certPem,
    });
    const message = await tlsFailure("http", `${HOST}:${server.port}`, "--https", "--ca", caFile);
    expect(message).toMatch(/alert certificate required \(SSL alert number 116\)$/);
  });
});

describe("swh-probe: text unless --output json", () => {
  it("prints the text line by default, wherever stdout goes, and JSON only when asked", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end());
    const target = `${HOST}:${server.port}`;
    const text = await cli("http", target, ...TIMEOUT);
    expect(text).toMatchObject({
      code: 0,
      out: [expect.stringMatching(`^PASS http ${target}: HTTP 200 OK in `)],
    });
    const json = await cli("http", target, ...JSON_OUTPUT, ...TIMEOUT);
    expect(JSON.parse(json.out[0] as string)).toEqual({
      target,
      kind: "http",
      ok: true,
      message: "HTTP 200 OK",
      durationMs: expect.any(Number),
    });
  });
});

describe("swh-probe -v: when each phase was reached", () => {
  it("https, text: connect, TLS, first byte and total after the result, on the same line", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(), {
      cert: cert.certPem,
      key: cert.keyPem,
    });
    const target = `${HOST}:${server.port}`;
    const { code, out } = await cli("http", target, "--https", "--ca", caFile, "-v", ...TIMEOUT);
    expect(code).toBe(0);
    const ms = "[\\d.]+ ms";
    expect(out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PASS http ${target}: HTTP 200 OK in ${ms} \\(connect ${ms}, TLS ${ms}, first byte ${ms}, total ${ms}\\)$`,
        ),
      ),
    ]);
  });

  it("json: a timings object with the phases reached; no timings without -v", async () => {
    const server = await startTcpServer(HOST, (socket) => socket.once("data", () => socket.end("+PONG\r\n")));
    const target = `${HOST}:${server.port}`;
    const argv = ["tcp", target, "--send", "PING\\r\\n", "--expect", "PONG", ...JSON_OUTPUT, ...TIMEOUT];
    const verbose = JSON.parse((await cli(...argv, "--verbose")).out[0] as string);
    expect(verbose).toMatchObject({ ok: true });
    expect(verbose.timings).toEqual({
      connectMs: expect.any(Number),
      firstByteMs: expect.any(Number),
      totalMs: verbose.durationMs,
    });
    const quiet = JSON.parse((await cli(...argv)).out[0] as string);
    expect(quiet).toMatchObject({ ok: true });
    expect(quiet).not.toHaveProperty("timings");
  });

  it("a failure shows how far the probe got: connected, no TLS handshake", async () => {
    const server = await startHttpServer(HOST, (_req, res) => res.end(), {
      cert: ca.certPem,
      key: ca.keyPem,
    });
    const { code, out } = await cli("http", `${HOST}:${server.port}`, "--https", "-v", ...TIMEOUT);
    expect(code).toBe(1);
    expect(out).toEqual([
      expect.stringMatching(/: TLSError: .* in [\d.]+ ms \(connect [\d.]+ ms, total [\d.]+ ms\)$/),
    ]);
  });
});

describe("swh-probe: usage errors are one line, naming the flag", () => {
  it.each([
    [
      ["tcp", "127.0.0.1:80", "--timeout", "2"],
      '--timeout: "2" has no unit: use 2s or 2000ms for seconds, 2ms for milliseconds',
    ],
    [
      ["tcp", "127.0.0.1:80", "--timeout=500"],
      '--timeout: "500" has no unit: use 500s or 500000ms for seconds, 500ms for milliseconds',
    ],
    [
      ["tcp", "127.0.0.1:80", "--path", "/x", "--https"],
      "--path does not apply to tcp probes (only to http)",
    ],
    [["http", "127.0.0.1:80", "--send", "PING"], "--send does not apply to http probes (only to tcp)"],
    [
      ["postgres", "127.0.0.1:5432", "--user", "app", "--service", "x"],
      "--service does not apply to postgres",
    ],
    [["http", "127.0.0.1:80", "--ca", "ca.pem"], "--ca needs --https"],
    [["http", "127.0.0.1:80", "--insecure"], "--insecure needs --https"],
    [
      ["postgres", "127.0.0.1:5432", "--user", "app", "--ca", "ca.pem"],
      "--ca needs --tls-mode VerifyCA or VerifyAll",
    ],
    [["http", "127.0.0.1:80", "--path", "healthz"], "--path: must start with /"],
    [
      ["http", "127.0.0.1:80", "--header", "Bad Name: 1"],
      "--header (httpHeaders[0].name): is not a valid header name",
    ],
    [
      ["http", "127.0.0.1:80", "--https", "--ca", "/nonexistent/ca.pem"],
      "--ca: ENOENT: no such file or directory",
    ],
    [["http", "127.0.0.1:80", "--frobnicate"], "unknown flag --frobnicate"],
    [["http", "127.0.0.1:80", "-x"], 'unexpected argument "-x"'],
  ])("%j → %s", async (argv, message) => {
    expect(await usageError(...argv)).toContain(message);
  });

  it("prints the help only when asked", async () => {
    const line = await usageError("http");
    expect(line).toBe("swh-probe: expected a probe kind and one address (try --help)");
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.out.join("\n")).toMatch(/^ {2}--path PATH +http: the request path \(default: \/\)$/m);
    expect(help.out.join("\n")).toMatch(/^ {2}-v, --verbose +also print when each phase was reached/m);
  });
});
