import { describe, expect, it } from "vitest";
import { bodyFraming, parseResponseHead } from "../src/internal/http-response-head.js";

const parse = (text: string, max = 1024) => parseResponseHead(Buffer.from(text, "latin1"), max);
const framingOf = (fields: string, status = "HTTP/1.1 200 OK") => {
  const parsed = parse(`${status}\r\n${fields}\r\n`);
  return parsed.kind === "head" ? parsed.head.framing : parsed;
};

describe("parseResponseHead", () => {
  it("parses status, reason, the fields (names lower-cased, values trimmed) and the framing", () => {
    expect(parse("HTTP/1.1 404 Not Found\r\nContent-Length: 12\r\nX-A:  b \r\n\r\nbody")).toEqual({
      kind: "head",
      head: {
        status: 404,
        reason: "Not Found",
        framing: { kind: "length", length: 12 },
        fields: [
          ["content-length", "12"],
          ["x-a", "b"],
        ],
        headLength: 56,
      },
    });
  });

  it("accepts bare LF line ends (RFC 9112 §2.2), alone or mixed with CRLF", () => {
    expect(parse("HTTP/1.1 200 OK\nContent-Length: 2\n\nok")).toEqual({
      kind: "head",
      head: {
        status: 200,
        reason: "OK",
        framing: { kind: "length", length: 2 },
        fields: [["content-length", "2"]],
        headLength: 35,
      },
    });
    expect(parse("HTTP/1.1 204 No Content\r\nA: b\n\r\n")).toMatchObject({
      head: { status: 204, headLength: 32 },
    });
  });

  it.each([
    [
      "Transfer-Encoding wins over Content-Length",
      "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
      { kind: "chunked" },
    ],
    ["chunked as the final coding of a list", "transfer-encoding: gzip, chunked\r\n", { kind: "chunked" }],
    [
      "chunked as the final coding over two fields",
      "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
      { kind: "chunked" },
    ],
    [
      "a final coding other than chunked runs to the close",
      "Transfer-Encoding: chunked, gzip\r\nContent-Length: 3\r\n",
      { kind: "close" },
    ],
    [
      "equal repeated Content-Length values",
      "Content-Length: 5\r\nContent-Length: 5\r\n",
      { kind: "length", length: 5 },
    ],
    ["an equal Content-Length list", "Content-Length: 5, 05\r\n", { kind: "length", length: 5 }],
    ["no framing field runs to the close", "X: y\r\n", { kind: "close" }],
    ["coding names are case-insensitive", "Transfer-Encoding: gzip , CHUNKED\r\n", { kind: "chunked" }],
    [
      "an empty Transfer-Encoding still wins, and runs to the close",
      "Transfer-Encoding: \r\nContent-Length: 3\r\n",
      { kind: "close" },
    ],
    [
      "Content-Length is not looked at when Transfer-Encoding frames the body",
      "Content-Length: bogus\r\nTransfer-Encoding: chunked\r\n",
      { kind: "chunked" },
    ],
    ["obsolete line folding is joined", "X: a\r\n b\r\nContent-Length: 1\r\n", { kind: "length", length: 1 }],
  ])("%s", (_, fields, framing) => {
    expect(framingOf(fields)).toEqual(framing);
  });

  it("treats Transfer-Encoding in an HTTP/1.0 response as faulty framing: read to the close", () => {
    expect(framingOf("Transfer-Encoding: chunked\r\n", "HTTP/1.0 200 OK")).toEqual({ kind: "close" });
  });

  it("asks for more bytes until the head is complete", () => {
    expect(parse("HTTP/1.1 200 OK\r\nContent-")).toEqual({ kind: "incomplete" });
    expect(parse("HTTP/1.1 200 OK\r\n\r")).toEqual({ kind: "incomplete" });
    expect(parse("HTT")).toEqual({ kind: "incomplete" });
  });

  it.each([
    ["SSH-2.0-x\r\n", "does not start with HTTP/"],
    ["XTTP", "does not start with HTTP/"],
    ["HTTP/2 200\r\n\r\n", "malformed status line"],
    ["HTTP/1.1 20 OK\r\n\r\n", "malformed status line"],
    ["HTTP/1.1 200 OK\r\nno-colon\r\n\r\n", "malformed header line"],
    ["HTTP/1.1 200 OK\r\nX : y\r\n\r\n", "malformed header line"],
    ["HTTP/1.1 200 OK\r\n folded-first: y\r\n\r\n", "malformed header line"],
    ["HTTP/1.1 200 OK\r\nA: b\rC: d\r\n\r\n", "bare CR"],
    ["HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length"],
    ["HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n", "invalid Content-Length"],
    [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
      "conflicting Content-Length values 5, 6",
    ],
    ["HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", "conflicting Content-Length"],
    [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6, 05\r\nContent-Length: 007\r\n\r\n",
      "conflicting Content-Length values 5, 6, 7",
    ],
    ["HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n", "bare CR"],
    [`HTTP/1.1 200 OK\r\n${"X: y\r\n".repeat(300)}`, "larger than 1024"],
    [`HTTP/1.1 200 OK\n${"X: y\n".repeat(300)}\n`, "larger than 1024"],
  ])("rejects %j", (text, message) => {
    expect(parse(text)).toEqual({ kind: "error", message: expect.stringContaining(message) });
  });

  it("gives no body to HEAD, 1xx, 204 and 304 responses (RFC 9112 §6.3)", () => {
    const head = (status: number) => ({
      status,
      reason: "",
      framing: { kind: "length", length: 9 } as const,
      fields: [],
      headLength: 0,
    });
    expect(bodyFraming(head(200), "HEAD")).toEqual({ kind: "none" });
    expect(bodyFraming(head(204), "GET")).toEqual({ kind: "none" });
    expect(bodyFraming(head(304), "GET")).toEqual({ kind: "none" });
    expect(bodyFraming(head(103), "GET")).toEqual({ kind: "none" });
    expect(bodyFraming(head(200), "GET")).toEqual({ kind: "length", length: 9 });
  });
});
