/** `http.responseHeaders` (ADR 0036): the answer must carry each header with exactly the expected value. */
import { describe, expect, it } from "vitest";
import { probeHttp } from "../src/index.js";
import { startHttpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
const opts = { timeoutMs: 10_000 };

/** An HTTP server answering 200 with `headers` (a header given twice is sent as two fields). */
function serve(headers: Record<string, string | string[]>, status = 200) {
  return startHttpServer(HOST, (_req, res) => {
    res.writeHead(status, headers);
    res.end("ok");
  });
}

describe("probeHttp response headers", () => {
  it.each([
    { sent: { "X-Pod-Name": "web-0" }, expected: [{ name: "X-Pod-Name", value: "web-0" }], ok: true },
    { sent: { "x-pod-name": "web-0" }, expected: [{ name: "X-POD-NAME", value: "web-0" }], ok: true },
    { sent: { "X-Pod-Name": "web-1" }, expected: [{ name: "X-Pod-Name", value: "web-0" }], ok: false },
    { sent: { "X-Other": "web-0" }, expected: [{ name: "X-Pod-Name", value: "web-0" }], ok: false },
    {
      sent: { "X-Pod-Name": ["web-1", "web-0"] },
      expected: [{ name: "X-Pod-Name", value: "web-0" }],
      ok: true,
    },
    // A prefix is no match: the value must be exactly the expected one.
    { sent: { "X-Pod-Name": "web-0-old" }, expected: [{ name: "X-Pod-Name", value: "web-0" }], ok: false },
    {
      sent: { "X-Pod-Name": "web-0", "X-Pod-Uid": "u-1" },
      expected: [
        { name: "X-Pod-Name", value: "web-0" },
        { name: "X-Pod-Uid", value: "u-2" },
      ],
      ok: false,
    },
  ])("$expected against $sent → ok=$ok", async ({ sent, expected, ok }) => {
    const server = await serve(sent);
    const result = await probeHttp({ host: HOST, port: server.port }, { responseHeaders: expected }, opts);
    expect(result.ok).toBe(ok);
    if (!ok)
      expect(result).toMatchObject({
        reason: "HTTPHeader",
        message: expect.stringMatching(/^HTTP 200 OK: header /),
      });
  });

  it("says whether the header is missing or has another value", async () => {
    const server = await serve({ "X-Pod-Name": "web-1" });
    const target = { host: HOST, port: server.port };
    const other = await probeHttp(
      target,
      { responseHeaders: [{ name: "X-Pod-Name", value: "web-0" }] },
      opts,
    );
    expect(other.message).toBe('HTTP 200 OK: header X-Pod-Name has another value (expected "web-0")');
    const missing = await probeHttp(target, { responseHeaders: [{ name: "X-Pod-Uid", value: "u" }] }, opts);
    expect(missing.message).toBe('HTTP 200 OK: header X-Pod-Uid is missing (expected "u")');
  });

  it("judges the status first: a 503 with the right header is HTTPStatus", async () => {
    const server = await serve({ "X-Pod-Name": "web-0" }, 503);
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { responseHeaders: [{ name: "X-Pod-Name", value: "web-0" }] },
      opts,
    );
    expect(result).toMatchObject({ ok: false, reason: "HTTPStatus" });
  });

  it("works with HEAD (no body needed)", async () => {
    const server = await serve({ "X-Pod-Name": "web-0" });
    const result = await probeHttp(
      { host: HOST, port: server.port },
      { method: "HEAD", responseHeaders: [{ name: "X-Pod-Name", value: "web-0" }] },
      opts,
    );
    expect(result).toMatchObject({ ok: true });
  });
});
