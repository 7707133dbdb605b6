/**
 * The gRPC probe's HTTP/2 client as a state machine, fed the server's bytes directly: what it hands its caller
 * for a well-formed answer however the bytes are split, what it answers (SETTINGS, PING), and how each frame
 * sequence a broken or hostile server can send ends the call. Probes against real servers are in
 * probe-grpc.test.ts and grpc-hostile-targets.test.ts.
 */
import { describe, expect, it } from "vitest";
import { indexedField, literalField } from "../src/internal/hpack/encode.js";
import { encodeFrame, FLAG, FRAME } from "../src/internal/http2-frames.js";
import { type CallFailure, Http2UnaryCall } from "../src/internal/http2-unary-call.js";

const SETTINGS = encodeFrame(FRAME.settings, 0, 0);
const RESPONSE_HEADERS = Buffer.concat([indexedField(8), literalField(31, "application/grpc")]);
const TRAILERS = literalField("grpc-status", "0");
const MESSAGE = Buffer.of(0, 0, 0, 0, 2, 0x08, 0x01);

/** A call with recording handlers. */
function startCall() {
  const seen: string[] = [];
  const sent: Buffer[] = [];
  let failure: CallFailure | undefined;
  const call = new Http2UnaryCall({
    send: (bytes) => sent.push(bytes),
    settings: () => seen.push("settings"),
    response: (fields, endStream) => seen.push(`response ${fields.get(":status")}${endStream ? " end" : ""}`),
    data: (bytes) => seen.push(`data ${bytes.toString("hex")}`),
    trailers: (fields) => seen.push(`trailers grpc-status=${fields.get("grpc-status")}`),
    failed: (f) => {
      failure = f;
      seen.push(`failed ${f.kind}`);
    },
  });
  return { call, seen, sent, failure: () => failure };
}

const ANSWER = Buffer.concat([
  SETTINGS,
  encodeFrame(FRAME.windowUpdate, 0, 0, Buffer.of(0, 0, 0x10, 0)),
  encodeFrame(FRAME.headers, FLAG.endHeaders, 1, RESPONSE_HEADERS),
  encodeFrame(FRAME.data, 0, 1, MESSAGE),
  encodeFrame(FRAME.headers, FLAG.endHeaders | FLAG.endStream, 1, TRAILERS),
]);
const ANSWERED = ["settings", "response 200", `data ${MESSAGE.toString("hex")}`, "trailers grpc-status=0"];

describe("Http2UnaryCall", () => {
  it("opens with the preface, its SETTINGS and the request on stream 1", () => {
    const opening = Http2UnaryCall.opening([Buffer.from("hd"), Buffer.from("rs")], Buffer.from("body"));
    expect(opening.subarray(0, 24).toString()).toBe("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    // SETTINGS: ENABLE_PUSH 0, MAX_HEADER_LIST_SIZE 16384.
    expect(opening.subarray(24, 24 + 21).toString("hex")).toBe("00000c040000000000000200000000000600004000");
    const headers = opening.subarray(45, 45 + 13);
    expect([headers[3], headers[4], headers.readUInt32BE(5), headers.subarray(9).toString()]).toEqual([
      FRAME.headers,
      FLAG.endHeaders,
      1,
      "hdrs",
    ]);
    const data = opening.subarray(58);
    expect([data[3], data[4], data.readUInt32BE(5), data.subarray(9).toString()]).toEqual([
      FRAME.data,
      FLAG.endStream,
      1,
      "body",
    ]);
  });

  it("hands over the answer and acknowledges the server's SETTINGS", () => {
    const { call, seen, sent } = startCall();
    call.receive(ANSWER);
    expect(seen).toEqual(ANSWERED);
    expect(Buffer.concat(sent).equals(encodeFrame(FRAME.settings, FLAG.ack, 0))).toBe(true);
  });

  it("reads the same answer split at every byte", () => {
    for (let cut = 1; cut < ANSWER.length; cut++) {
      const { call, seen } = startCall();
      call.receive(ANSWER.subarray(0, cut));
      call.receive(ANSWER.subarray(cut));
      expect(seen, `cut at ${cut}`).toEqual(ANSWERED);
    }
  });

  it("reads the same answer a byte at a time", () => {
    const { call, seen, sent } = startCall();
    for (const byte of ANSWER) call.receive(Buffer.of(byte));
    expect(seen).toEqual(ANSWERED);
    expect(Buffer.concat(sent).equals(encodeFrame(FRAME.settings, FLAG.ack, 0))).toBe(true);
  });

  it("reads padded frames, a HEADERS priority and a header block in CONTINUATION frames", () => {
    const { call, seen } = startCall();
    const padded = (payload: Buffer, pad: number) =>
      Buffer.concat([Buffer.of(pad), payload, Buffer.alloc(pad)]);
    call.receive(
      Buffer.concat([
        SETTINGS,
        encodeFrame(
          FRAME.headers,
          FLAG.padded | FLAG.priority,
          1,
          padded(Buffer.concat([Buffer.alloc(5), RESPONSE_HEADERS.subarray(0, 1)]), 3),
        ),
        encodeFrame(FRAME.continuation, FLAG.endHeaders, 1, RESPONSE_HEADERS.subarray(1)),
        encodeFrame(FRAME.data, FLAG.padded, 1, padded(MESSAGE, 4)),
        encodeFrame(FRAME.headers, FLAG.endHeaders | FLAG.endStream, 1, TRAILERS),
      ]),
    );
    expect(seen).toEqual(ANSWERED);
  });

  it("answers a PING with its payload, and stops reading once ended", () => {
    const { call, seen, sent } = startCall();
    const ping = Buffer.from("12345678");
    call.receive(Buffer.concat([SETTINGS, encodeFrame(FRAME.ping, 0, 0, ping)]));
    expect(Buffer.concat(sent).includes(encodeFrame(FRAME.ping, FLAG.ack, 0, ping))).toBe(true);
    call.end();
    call.receive(encodeFrame(FRAME.headers, FLAG.endHeaders, 1, RESPONSE_HEADERS));
    expect(seen).toEqual(["settings"]);
  });

  it("hands over a Trailers-Only answer as response headers that end the stream", () => {
    const { call, seen } = startCall();
    const headers = Buffer.concat([RESPONSE_HEADERS, literalField("grpc-status", "12")]);
    call.receive(
      Buffer.concat([SETTINGS, encodeFrame(FRAME.headers, FLAG.endHeaders | FLAG.endStream, 1, headers)]),
    );
    expect(seen).toEqual(["settings", "response 200 end"]);
  });

  it("waits for the answer after a graceful GOAWAY that covers stream 1", () => {
    const { call, seen } = startCall();
    call.receive(
      Buffer.concat([SETTINGS, encodeFrame(FRAME.goaway, 0, 0, Buffer.of(0, 0, 0, 1, 0, 0, 0, 0))]),
    );
    call.receive(ANSWER.subarray(SETTINGS.length));
    expect(seen.slice(1)).toEqual(ANSWERED.slice(1));
  });

  const failures: [string, Buffer, CallFailure][] = [
    [
      "bytes that are not HTTP/2",
      Buffer.from("HTTP/1.1 400 Bad Request\r\n\r\n"),
      { kind: "protocol", message: "bytes that are not HTTP/2 (the first frame is not SETTINGS)" },
    ],
    [
      "a frame over 16,384 bytes",
      Buffer.concat([SETTINGS, Buffer.of(0, 0x40, 0x01, FRAME.data, 0, 0, 0, 0, 1)]),
      { kind: "protocol", message: "a frame of 16385 bytes, over HTTP/2's 16384 (FRAME_SIZE_ERROR)" },
    ],
    [
      "GOAWAY with an error",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.goaway, 0, 0, Buffer.of(0, 0, 0, 1, 0, 0, 0, 11))]),
      { kind: "goaway", code: 11 },
    ],
    [
      "GOAWAY before stream 1",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.goaway, 0, 0, Buffer.of(0, 0, 0, 0, 0, 0, 0, 0))]),
      { kind: "goaway", code: 0 },
    ],
    [
      "RST_STREAM",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.rstStream, 0, 1, Buffer.of(0, 0, 0, 7))]),
      { kind: "reset", code: 7 },
    ],
    [
      "a PUSH_PROMISE",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.pushPromise, FLAG.endHeaders, 1, Buffer.of(0, 0, 0, 2))]),
      { kind: "protocol", message: "a PUSH_PROMISE though push is disabled" },
    ],
    [
      "HEADERS on a stream we never opened",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.headers, FLAG.endHeaders, 3, RESPONSE_HEADERS)]),
      { kind: "protocol", message: "a HEADERS frame on stream 3, which we never opened" },
    ],
    [
      "DATA before the response headers",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.data, 0, 1, MESSAGE)]),
      { kind: "protocol", message: "a DATA frame before the response headers" },
    ],
    [
      "a header block interrupted by another frame",
      Buffer.concat([
        SETTINGS,
        encodeFrame(FRAME.headers, 0, 1, RESPONSE_HEADERS),
        encodeFrame(FRAME.ping, 0, 0, Buffer.alloc(8)),
      ]),
      { kind: "protocol", message: "a header block was interrupted by another frame" },
    ],
    [
      "padding longer than the frame",
      Buffer.concat([
        SETTINGS,
        encodeFrame(FRAME.headers, FLAG.padded | FLAG.endHeaders, 1, Buffer.of(9, 0x88)),
      ]),
      { kind: "protocol", message: "a HEADERS frame with bad padding" },
    ],
    [
      "a header block HPACK cannot decode",
      Buffer.concat([SETTINGS, encodeFrame(FRAME.headers, FLAG.endHeaders, 1, Buffer.of(0x80))]),
      { kind: "protocol", message: "headers that cannot be decoded (HPACK: index 0)" },
    ],
    [
      "a header block over the bound in CONTINUATION frames",
      Buffer.concat([
        SETTINGS,
        encodeFrame(FRAME.headers, 0, 1, RESPONSE_HEADERS),
        ...Array.from({ length: 2 }, () => encodeFrame(FRAME.continuation, 0, 1, Buffer.alloc(9_000))),
      ]),
      { kind: "headersTooLarge" },
    ],
    [
      "a body that ends without trailers",
      Buffer.concat([
        SETTINGS,
        encodeFrame(FRAME.headers, FLAG.endHeaders, 1, RESPONSE_HEADERS),
        encodeFrame(FRAME.data, FLAG.endStream, 1, MESSAGE),
      ]),
      { kind: "endedWithoutTrailers" },
    ],
    [
      "a second header block that does not end the stream",
      Buffer.concat([
        SETTINGS,
        encodeFrame(FRAME.headers, FLAG.endHeaders, 1, RESPONSE_HEADERS),
        encodeFrame(FRAME.headers, FLAG.endHeaders, 1, TRAILERS),
      ]),
      { kind: "protocol", message: "a second header block that does not end the stream" },
    ],
    [
      "PINGs in a loop",
      Buffer.concat([
        SETTINGS,
        ...Array.from({ length: 200 }, () => encodeFrame(FRAME.ping, 0, 0, Buffer.alloc(8))),
      ]),
      { kind: "protocol", message: "over 128 frames without an answer: a flood" },
    ],
    [
      "a malformed SETTINGS frame",
      encodeFrame(FRAME.settings, 0, 0, Buffer.alloc(5)),
      { kind: "protocol", message: "a malformed SETTINGS frame" },
    ],
  ];
  it.each(failures)("ends the call on %s", (_what, bytes, expected) => {
    const { call, failure, seen } = startCall();
    call.receive(bytes);
    expect(failure()).toEqual(expected);
    // Nothing is handed over after the failure.
    expect(seen.at(-1)).toBe(`failed ${expected.kind}`);
  });
});
