import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  encodeHealthCheckResponse,
} from "../src/internal/grpc-health-codec.js";

describe("grpc.health.v1 codec", () => {
  it("reads back every serving status it writes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (status) => {
        expect(decodeHealthCheckResponse(encodeHealthCheckResponse(status))).toEqual({ ok: true, status });
      }),
    );
  });

  it("writes the bytes protobuf writes: a framed request with the service, empty for the whole server", () => {
    expect(encodeHealthCheckRequest("")).toEqual(Buffer.of(0, 0, 0, 0, 0));
    expect(encodeHealthCheckRequest("a.B")).toEqual(Buffer.of(0, 0, 0, 0, 5, 0x0a, 3, 0x61, 0x2e, 0x42));
  });

  it.each([
    ["SERVING (field 1 = varint 1)", [0, 0, 0, 0, 2, 0x08, 1], { ok: true, status: 1 }],
    ["an empty message (status UNKNOWN by default)", [0, 0, 0, 0, 0], { ok: true, status: 0 }],
    [
      "an unknown string field before the status",
      [0, 0, 0, 0, 5, 0x12, 1, 0x78, 0x08, 2],
      { ok: true, status: 2 },
    ],
  ])("decodes %s", (_name, bytes, expected) => {
    expect(decodeHealthCheckResponse(Buffer.from(bytes))).toEqual(expected);
  });

  it.each([
    ["a truncated frame", [0, 0, 0]],
    ["a compressed message", [1, 0, 0, 0, 2, 0x08, 1]],
    ["a frame longer than the body", [0, 0, 0, 0, 9, 0x08, 1]],
    ["two messages", [0, 0, 0, 0, 2, 0x08, 1, 0, 0, 0, 0, 2, 0x08, 1]],
    ["a truncated varint", [0, 0, 0, 0, 2, 0x08, 0x80]],
    ["a length past the end", [0, 0, 0, 0, 3, 0x12, 9, 0x78]],
    ["a status that is not a varint", [0, 0, 0, 0, 3, 0x0a, 1, 0x78]],
    ["a group wire type", [0, 0, 0, 0, 1, 0x0b]],
  ])("refuses %s", (_name, bytes) => {
    expect(decodeHealthCheckResponse(Buffer.from(bytes))).toMatchObject({ ok: false });
  });
});
