import { describe, expect, it } from "vitest";
import { hasNoBody, parseResponseHead } from "../src/internal/http-response-head.js";

const parse = (text: string, max = 1024) => parseResponseHead(Buffer.from(text, "latin1"), max);

describe("parseResponseHead", () => {
  it("parses status, reason and framing headers", () => {
    expect(parse("HTTP/1.1 404 Not Found\r\nContent-Length: 12\r\nX-A: b\r\n\r\nbody")).toEqual({
      kind: "head",
      head: { status: 404, reason: "Not Found", contentLength: 12, chunked: false, headLength: 54 },
    });
    expect(parse("HTTP/1.0 200\r\ntransfer-encoding: gzip, chunked\r\n\r\n")).toMatchObject({
      head: { status: 200, reason: "", chunked: true },
    });
  });

  it("asks for more bytes until the head is complete", () => {
    expect(parse("HTTP/1.1 200 OK\r\nContent-")).toEqual({ kind: "incomplete" });
    expect(parse("HTT")).toEqual({ kind: "incomplete" });
  });

  it.each([
    ["SSH-2.0-x\r\n", "does not start with HTTP/"],
    ["HTTP/2 200\r\n\r\n", "malformed status line"],
    ["HTTP/1.1 20 OK\r\n\r\n", "malformed status line"],
    ["HTTP/1.1 200 OK\r\nno-colon\r\n\r\n", "malformed header line"],
    ["HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length"],
    [`HTTP/1.1 200 OK\r\n${"X: y\r\n".repeat(300)}`, "larger than 1024"],
  ])("rejects %j", (text, message) => {
    expect(parse(text)).toEqual({ kind: "error", message: expect.stringContaining(message) });
  });

  it("knows which responses carry no body", () => {
    expect(hasNoBody(200, "HEAD")).toBe(true);
    expect(hasNoBody(204, "GET")).toBe(true);
    expect(hasNoBody(304, "GET")).toBe(true);
    expect(hasNoBody(200, "GET")).toBe(false);
  });
});
