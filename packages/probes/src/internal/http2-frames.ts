/** HTTP/2 framing as the gRPC probe speaks it (RFC 9113 §4, §6): frame types, flags, error codes, one frame. */

/** What a client sends first on every connection (RFC 9113 §3.4). */
export const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export const FRAME = {
  data: 0x0,
  headers: 0x1,
  priority: 0x2,
  rstStream: 0x3,
  settings: 0x4,
  pushPromise: 0x5,
  ping: 0x6,
  goaway: 0x7,
  windowUpdate: 0x8,
  continuation: 0x9,
} as const;

export const FLAG = { endStream: 0x1, ack: 0x1, endHeaders: 0x4, padded: 0x8, priority: 0x20 } as const;

export const SETTING = { enablePush: 0x2, initialWindowSize: 0x4, maxHeaderListSize: 0x6 } as const;

/** The frame header's size: length (24 bits), type, flags, stream id (31 bits). */
export const FRAME_HEADER_BYTES = 9;
/** The largest frame payload a peer may send before we raise SETTINGS_MAX_FRAME_SIZE (we never do). */
export const MAX_FRAME_BYTES = 16_384;

const ERROR_NAMES = [
  "NO_ERROR",
  "PROTOCOL_ERROR",
  "INTERNAL_ERROR",
  "FLOW_CONTROL_ERROR",
  "SETTINGS_TIMEOUT",
  "STREAM_CLOSED",
  "FRAME_SIZE_ERROR",
  "REFUSED_STREAM",
  "CANCEL",
  "COMPRESSION_ERROR",
  "CONNECT_ERROR",
  "ENHANCE_YOUR_CALM",
  "INADEQUATE_SECURITY",
  "HTTP_1_1_REQUIRED",
];

/** An error code's name (RFC 9113 §7), or `code N` for one the RFC does not define. */
export function http2ErrorName(code: number): string {
  return ERROR_NAMES[code] ?? `code ${code}`;
}

/** Writes a frame header into `out` at `at`; returns where the frame's payload starts. */
export function writeFrameHeader(
  out: Buffer,
  at: number,
  frame: { length: number; type: number; flags: number; streamId: number },
): number {
  out.writeUIntBE(frame.length, at, 3);
  out[at + 3] = frame.type;
  out[at + 4] = frame.flags;
  out.writeUInt32BE(frame.streamId, at + 5);
  return at + FRAME_HEADER_BYTES;
}

/** One frame: its header and `payload`. */
export function encodeFrame(type: number, flags: number, streamId: number, payload?: Buffer): Buffer {
  const length = payload?.length ?? 0;
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  const at = writeFrameHeader(frame, 0, { length, type, flags, streamId });
  payload?.copy(frame, at);
  return frame;
}

/** A SETTINGS frame with `settings` as (identifier, value) pairs. */
export function settingsFrame(settings: readonly (readonly [number, number])[]): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return encodeFrame(FRAME.settings, 0, 0, payload);
}
