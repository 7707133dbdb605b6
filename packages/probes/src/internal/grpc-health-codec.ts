/**
 * The wire format of `grpc.health.v1`: the gRPC length-prefixed message framing and the two protobuf messages
 * the probe exchanges. Pure (bytes in, data out); the one place this format is written and read — the probe, the
 * benchmark's targets and the tests all use it. Just enough protobuf for two one-field messages: a full protobuf
 * runtime (`@grpc/grpc-js` brings protobufjs) costs more than it does here (ADR 0027).
 */

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`, by number. */
export const SERVING_STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

/** gRPC status code names by number (grpc/doc/statuscodes.md). */
export const GRPC_STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** The path of the health check method. */
export const HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check";

/** Returns one gRPC message frame (uncompressed) holding `message`. */
function frameGrpcMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** Returns the framed `HealthCheckRequest { service }` (an empty service is the server as a whole). */
export function encodeHealthCheckRequest(service: string): Buffer {
  return frameGrpcMessage(encodeField1(2, Buffer.from(service, "utf8")));
}

/** Returns the framed `HealthCheckResponse { status }` (for servers: the benchmark's and the tests'). */
export function encodeHealthCheckResponse(status: number): Buffer {
  return frameGrpcMessage(encodeField1(0, encodeVarint(status)));
}

/** What `decodeHealthCheckResponse` found: the serving status number, or why the bytes are not a response. */
export type DecodedHealthResponse = { ok: true; status: number } | { ok: false; message: string };

/**
 * Decodes the body of a Check call: exactly one uncompressed gRPC message holding a `HealthCheckResponse`.
 * Unknown fields are skipped (a newer server may add some); a missing status is `UNKNOWN` (proto3 default).
 */
export function decodeHealthCheckResponse(body: Uint8Array): DecodedHealthResponse {
  if (body.length < 5) return { ok: false, message: `response message of ${body.length} bytes is truncated` };
  if (body[0] !== 0) return { ok: false, message: "response message is compressed (none was accepted)" };
  const length = Buffer.from(body.buffer, body.byteOffset, body.length).readUInt32BE(1);
  if (body.length !== 5 + length)
    return { ok: false, message: `response holds ${body.length - 5} bytes, its frame says ${length}` };
  let status = 0;
  let at = 5;
  while (at < body.length) {
    const tag = readVarint(body, at);
    if (tag === undefined) return { ok: false, message: "malformed protobuf tag" };
    at = tag.next;
    const field = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    if (wireType === 0) {
      const value = readVarint(body, at);
      if (value === undefined) return { ok: false, message: "malformed protobuf varint" };
      if (field === 1) status = value.value;
      at = value.next;
    } else if (wireType === 2) {
      const len = readVarint(body, at);
      if (len === undefined || len.next + len.value > body.length)
        return { ok: false, message: "malformed protobuf length" };
      at = len.next + len.value;
    } else if (wireType === 1 || wireType === 5) {
      at += wireType === 1 ? 8 : 4;
      if (at > body.length) return { ok: false, message: "truncated protobuf field" };
    } else {
      return { ok: false, message: `unsupported protobuf wire type ${wireType}` };
    }
    if (field === 1 && wireType !== 0) return { ok: false, message: "status is not a varint" };
  }
  return { ok: true, status };
}

/** Field 1 with wire type `wireType` (0 varint, 2 length-delimited) and its encoded `payload`; empty for defaults. */
function encodeField1(wireType: 0 | 2, payload: Buffer): Buffer {
  // proto3 leaves default values (0, "") out of the message.
  if (wireType === 2 && payload.length === 0) return Buffer.alloc(0);
  if (wireType === 0 && payload.length === 1 && payload[0] === 0) return Buffer.alloc(0);
  const tag = Buffer.of((1 << 3) | wireType);
  return wireType === 2
    ? Buffer.concat([tag, encodeVarint(payload.length), payload])
    : Buffer.concat([tag, payload]);
}

function encodeVarint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** Reads a varint of at most 7 bytes (up to 2^49, within a JS number); undefined when malformed or truncated. */
function readVarint(bytes: Uint8Array, from: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let at = from; at < bytes.length && at < from + 7; at++) {
    const byte = bytes[at] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next: at + 1 };
    scale *= 0x80;
  }
  return undefined;
}
