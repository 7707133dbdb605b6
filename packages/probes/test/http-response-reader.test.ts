import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ReadOutcome, ResponseReader } from "../src/internal/http-response-reader.js";
import { MAX_BODY_BYTES, MAX_HEAD_BYTES } from "../src/probe-http.js";
import { splitAt } from "./helpers/split-reads.js";

/** Feeds `parts` one read at a time, then the close when `close`; returns the first settled outcome. */
function read(parts: readonly Buffer[], opts: { method?: string; close?: boolean } = {}): ReadOutcome {
  const reader = new ResponseReader({
    method: opts.method ?? "GET",
    maxHeadBytes: MAX_HEAD_BYTES,
    maxBodyBytes: MAX_BODY_BYTES,
  });
  for (const part of parts) {
    const outcome = reader.push(part);
    if (outcome.kind !== "more") return outcome;
  }
  return opts.close ? reader.end() : { kind: "more" };
}
const bytes = (text: string) => Buffer.from(text, "latin1");
const readText = (text: string, opts?: { method?: string; close?: boolean }) => read([bytes(text)], opts);
const body = (outcome: ReadOutcome) =>
  outcome.kind === "complete" ? outcome.body.toString("latin1") : outcome;

describe("ResponseReader", () => {
  it("completes a Content-Length response without waiting for the close", () => {
    expect(body(readText("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))).toBe("ok");
  });

  it("completes a chunked response whose terminator is split across reads, without the close", () => {
    const text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
    for (let i = 1; i < text.length; i++) {
      expect(body(read([bytes(text.slice(0, i)), bytes(text.slice(i))])), `split at ${i}`).toBe("ok");
    }
  });

  it("reads chunk extensions and trailers, and keeps only the chunk data", () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;name="v;x"\r\nabc\r\n1 ; a=b\r\nd\r\n0;last\r\nDigest: x\r\nServer-Timing: y\r\n\r\n';
    expect(body(readText(text))).toBe("abcd");
  });

  it("lets Transfer-Encoding win over Content-Length", () => {
    const text =
      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
    expect(body(readText(text))).toBe("ok");
  });

  it("reads a body without framing to the close", () => {
    expect(readText("HTTP/1.1 200 OK\r\n\r\npartial")).toEqual({ kind: "more" });
    expect(body(readText("HTTP/1.1 200 OK\r\n\r\nall of it", { close: true }))).toBe("all of it");
  });

  it("skips interim responses and reads no body for HEAD, 204 and 304", () => {
    expect(
      readText("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"),
    ).toMatchObject({
      kind: "complete",
      head: { status: 204 },
    });
    expect(readText("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", { method: "HEAD" })).toMatchObject({
      kind: "complete",
      head: { status: 200 },
    });
    expect(readText("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n")).toMatchObject({
      kind: "complete",
    });
  });

  it("keeps at most MAX_BODY_BYTES of the body and completes there", () => {
    const outcome = readText(
      `HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${"x".repeat(MAX_BODY_BYTES + 10)}`,
    );
    expect(outcome).toMatchObject({ kind: "complete", bodyTruncated: true });
    expect(outcome.kind === "complete" && outcome.body.length).toBe(MAX_BODY_BYTES);
  });

  it.each([
    ["a close before the head", "HTTP/1.1 200 OK\r\n", "connection closed before a complete response head"],
    [
      "a close inside a Content-Length body",
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab",
      "before the end of the response body",
    ],
    [
      "a close inside a chunked body",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n",
      "before the end",
    ],
    [
      "a chunk size that is not hex",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "malformed chunk-size line",
    ],
    [
      "a negative chunk size",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
      "malformed chunk-size line",
    ],
    [
      "chunk data longer than its size",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nok\r\n",
      "longer than its size",
    ],
    [
      "an endless chunk-size line",
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;${"x".repeat(5000)}`,
      "longer than 4096",
    ],
    [
      "a malformed trailer",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n",
      "malformed header line",
    ],
    [
      "an endless trailer section",
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${"T: x\r\n".repeat(3000)}`,
      "trailer section larger",
    ],
    [
      "conflicting Content-Length",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      "conflicting",
    ],
  ])("rejects %s", (_, text, message) => {
    expect(readText(text, { close: true })).toEqual({
      kind: "error",
      message: expect.stringContaining(message),
    });
  });
});

// ---- Property: any split of the same bytes gives the same outcome ----------------------------------------

/** A valid response, its bytes, what it must read as, and whether its end is the close. */
interface Sample {
  bytes: Buffer;
  status: number;
  body: Buffer;
  close: boolean;
}

const eol = fc.constantFrom("\r\n", "\n");
const validResponse: fc.Arbitrary<Sample> = fc
  .record({
    eol,
    status: fc.constantFrom(200, 201, 299, 302, 404, 500, 503),
    interim: fc.boolean(),
    framing: fc.constantFrom("length", "chunked", "close"),
    body: fc.uint8Array({ maxLength: 6000 }).map((a) => Buffer.from(a)),
    chunkSizes: fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 8 }),
    extension: fc.constantFrom("", ";a=b", ' ; q="x;y"'),
    trailers: fc.constantFrom("", "Digest: abc", "A: 1\r\nB: 2"),
    upperHex: fc.boolean(),
  })
  .map(({ eol: e, status, interim, framing, body, chunkSizes, extension, trailers, upperHex }) => {
    const fields = ["Server: test", "Content-Type: text/plain"];
    if (framing === "length") fields.push(`Content-Length: ${body.length}`);
    if (framing === "chunked") fields.push("Transfer-Encoding: chunked");
    const head = `${interim ? `HTTP/1.1 100 Continue${e}${e}` : ""}HTTP/1.1 ${status} X${e}${fields.join(e)}${e}${e}`;
    const parts = [bytes(head)];
    if (framing === "chunked") {
      let at = 0;
      for (let i = 0; at < body.length; i++) {
        const size = Math.min(chunkSizes[i % chunkSizes.length] as number, body.length - at);
        const hex = size.toString(16);
        parts.push(
          bytes(`${upperHex ? hex.toUpperCase() : hex}${extension}\r\n`),
          body.subarray(at, at + size),
        );
        parts.push(bytes("\r\n"));
        at += size;
      }
      parts.push(bytes(`0${extension}\r\n${trailers ? `${trailers}\r\n` : ""}\r\n`));
    } else {
      parts.push(body);
    }
    return {
      bytes: Buffer.concat(parts),
      status,
      body: body.subarray(0, MAX_BODY_BYTES),
      close: framing === "close",
    };
  });

const splits = (length: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 40 });

describe("ResponseReader under random read splits (property)", () => {
  it("reads every valid response the same however its bytes are split", () => {
    fc.assert(
      fc.property(
        validResponse.chain((s) => fc.tuple(fc.constant(s), splits(s.bytes.length))),
        ([sample, cuts]) => {
          const outcome = read(splitAt(sample.bytes, cuts), { close: sample.close });
          expect(outcome).toMatchObject({ kind: "complete", head: { status: sample.status } });
          expect(outcome.kind === "complete" && outcome.body.equals(sample.body)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("rejects every invalid response with the same message however its bytes are split", () => {
    const invalid = fc.constantFrom(
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcdefgh\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n",
      "HTTP/1.1 200 OK\r\nA: b\rC: d\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nbad trailer\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      "HTTX/1.1 200 OK\r\n\r\n",
    );
    fc.assert(
      fc.property(
        invalid.chain((t) => fc.tuple(fc.constant(t), splits(t.length))),
        ([text, cuts]) => {
          const whole = readText(text, { close: true });
          expect(whole.kind).toBe("error");
          expect(read(splitAt(bytes(text), cuts), { close: true })).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
