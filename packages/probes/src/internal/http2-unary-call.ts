/**
 * One unary call on stream 1 of a fresh HTTP/2 connection, as a client (RFC 9113), for the gRPC probe: the
 * opening bytes (preface, SETTINGS, the request's HEADERS and DATA, sent at once as the RFC allows), then the
 * server's frames as they arrive. It answers SETTINGS and PING as the RFC requires and hands the response's
 * header blocks and DATA to its caller, who judges them. No sockets here: bytes in, bytes out, so that every
 * hostile frame sequence is a unit test.
 *
 * Bounds, all on untrusted input: a frame over 16,384 bytes (SETTINGS_MAX_FRAME_SIZE, never raised), a header
 * block over `HEADER_LIST_LIMITS` (compressed, or its list decoded), more than `MAX_FRAMES` frames before the
 * call ends (pings, settings or empty frames in a loop), push (disabled), a stream other than 1.
 * Each ends the call with its failure; the caller closes the connection then.
 */

import { type HeaderFields, type HeaderListLimits, HpackDecoder } from "./hpack/decoder.js";
import { HeaderListTooLargeError, HpackError } from "./hpack/hpack-error.js";
import {
  CLIENT_PREFACE,
  encodeFrame,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  MAX_FRAME_BYTES,
  SETTING,
  settingsFrame,
  writeFrameHeader,
} from "./http2-frames.js";

export type { HeaderFields } from "./hpack/decoder.js";

/** Why a call ended without a complete answer. */
export type CallFailure =
  | { kind: "goaway"; code: number }
  | { kind: "reset"; code: number }
  | { kind: "headersTooLarge" }
  | { kind: "endedWithoutTrailers" }
  | { kind: "protocol"; message: string };

/** What the call tells its caller; `send` must write the bytes to the connection. */
export interface CallHandlers {
  send(bytes: Buffer): void;
  /** The server's first SETTINGS arrived: it speaks HTTP/2. */
  settings(): void;
  /** The response's headers; `endStream`: there is no body and no trailers (gRPC's Trailers-Only). */
  response(fields: HeaderFields, endStream: boolean): void;
  data(bytes: Buffer): void;
  trailers(fields: HeaderFields): void;
  failed(failure: CallFailure): void;
}

/**
 * Bounds on each header list the server sends (headers, trailers), advertised in SETTINGS_MAX_HEADER_LIST_SIZE and
 * enforced decoded; `maxBytes` bounds the compressed block as well.
 */
export const HEADER_LIST_LIMITS: HeaderListLimits = { maxFields: 64, maxBytes: 16 * 1024 };

/** The preface and our SETTINGS: no push, our header list bound. */
const PRELUDE = Buffer.concat([
  CLIENT_PREFACE,
  settingsFrame([
    [SETTING.enablePush, 0],
    [SETTING.maxHeaderListSize, HEADER_LIST_LIMITS.maxBytes],
  ]),
]);

/** Frames accepted before the call must have ended; a real answer takes about seven. */
const MAX_FRAMES = 128;
const STREAM = 1;

/** The call's state machine (see the file comment). */
export class Http2UnaryCall {
  readonly #handlers: CallHandlers;
  readonly #hpack = new HpackDecoder();
  /** Bytes received and not read yet (not joined until a whole frame, or its header, is there), and how many. */
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** How many buffered bytes the next frame needs before it can be read. */
  #needed = FRAME_HEADER_BYTES;
  #frames = 0;
  #sawSettings = false;
  #responded = false;
  /** Fragments of a header block waiting for END_HEADERS, and its END_STREAM. */
  #block: Buffer[] | undefined;
  #blockBytes = 0;
  #blockEndsStream = false;
  #ended = false;

  constructor(handlers: CallHandlers) {
    this.#handlers = handlers;
  }

  /**
   * The connection's first bytes: `PRELUDE`, then the request: a HEADERS frame of `headerFields` (encoded fields,
   * in order) and a DATA frame of `body`. Built in one allocation: it is made for every check.
   */
  static opening(headerFields: readonly Buffer[], body: Buffer): Buffer {
    let blockBytes = 0;
    for (const field of headerFields) blockBytes += field.length;
    const total = PRELUDE.length + 2 * FRAME_HEADER_BYTES + blockBytes + body.length;
    const out = Buffer.allocUnsafe(total);
    let at = PRELUDE.copy(out, 0);
    const headers = { length: blockBytes, type: FRAME.headers, flags: FLAG.endHeaders, streamId: STREAM };
    at = writeFrameHeader(out, at, headers);
    for (const field of headerFields) at += field.copy(out, at);
    at = writeFrameHeader(out, at, {
      length: body.length,
      type: FRAME.data,
      flags: FLAG.endStream,
      streamId: STREAM,
    });
    body.copy(out, at);
    return out;
  }

  /** Stops reading: nothing more is handed to the caller (the call was judged or the connection ended). */
  end(): void {
    this.#ended = true;
    this.#chunks = [];
    this.#buffered = 0;
  }

  /**
   * Reads the server's bytes `chunk`; answers SETTINGS and PING in one write once the chunk is read. Bytes are
   * joined only once a frame (or its header) is complete, so a server trickling a frame byte by byte costs one
   * copy of it, not one per byte.
   */
  receive(chunk: Buffer): void {
    if (this.#ended) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#buffered < this.#needed) return;
    let bytes = this.#chunks.length === 1 ? chunk : Buffer.concat(this.#chunks, this.#buffered);
    this.#chunks = [];
    this.#buffered = 0;
    this.#needed = FRAME_HEADER_BYTES;
    const replies: Buffer[] = [];
    while (!this.#ended && bytes.length >= FRAME_HEADER_BYTES) {
      const length = bytes.readUIntBE(0, 3);
      const frameType = bytes[3] ?? 0;
      const refused = this.#refuse(frameType, length);
      if (refused !== undefined) {
        this.#fail(refused);
        break;
      }
      if (bytes.length < FRAME_HEADER_BYTES + length) {
        this.#needed = FRAME_HEADER_BYTES + length;
        break;
      }
      const flags = bytes[4] ?? 0;
      const streamId = bytes.readUInt32BE(5) & 0x7fffffff;
      const payload = bytes.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length);
      bytes = bytes.subarray(FRAME_HEADER_BYTES + length);
      const failure =
        ++this.#frames > MAX_FRAMES
          ? { kind: "protocol" as const, message: `over ${MAX_FRAMES} frames without an answer: a flood` }
          : this.#frame(frameType, flags, streamId, payload, replies);
      if (failure !== undefined) this.#fail(failure);
    }
    if (this.#ended) return;
    if (bytes.length > 0) {
      this.#chunks.push(bytes);
      this.#buffered = bytes.length;
    }
    if (replies.length > 0)
      this.#handlers.send(replies.length === 1 ? (replies[0] as Buffer) : Buffer.concat(replies));
  }

  /** Why a frame with this header cannot be read, before its payload is waited for. */
  #refuse(type: number, length: number): CallFailure | undefined {
    if (!this.#sawSettings && type !== FRAME.settings)
      return { kind: "protocol", message: "bytes that are not HTTP/2 (the first frame is not SETTINGS)" };
    if (length > MAX_FRAME_BYTES)
      return {
        kind: "protocol",
        message: `a frame of ${length} bytes, over HTTP/2's ${MAX_FRAME_BYTES} (FRAME_SIZE_ERROR)`,
      };
    return undefined;
  }

  #fail(failure: CallFailure): void {
    if (this.#ended) return;
    this.end();
    this.#handlers.failed(failure);
  }

  #frame(
    type: number,
    flags: number,
    streamId: number,
    payload: Buffer,
    replies: Buffer[],
  ): CallFailure | undefined {
    if (this.#block !== undefined && (type !== FRAME.continuation || streamId !== STREAM))
      return { kind: "protocol", message: "a header block was interrupted by another frame" };
    switch (type) {
      case FRAME.settings:
        return this.#settings(flags, streamId, payload, replies);
      case FRAME.ping:
        if (streamId !== 0 || payload.length !== 8)
          return { kind: "protocol", message: "a malformed PING frame" };
        if ((flags & FLAG.ack) === 0) replies.push(encodeFrame(FRAME.ping, FLAG.ack, 0, payload));
        return;
      case FRAME.goaway: {
        if (streamId !== 0 || payload.length < 8)
          return { kind: "protocol", message: "a malformed GOAWAY frame" };
        const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
        const code = payload.readUInt32BE(4);
        // A graceful GOAWAY that still covers our stream lets the answer arrive; anything else ends the call.
        return code !== 0 || lastStreamId < STREAM ? { kind: "goaway", code } : undefined;
      }
      case FRAME.rstStream:
        if (streamId !== STREAM || payload.length !== 4)
          return { kind: "protocol", message: "a malformed RST_STREAM frame" };
        return { kind: "reset", code: payload.readUInt32BE(0) };
      case FRAME.headers:
        return this.#headers(flags, streamId, payload);
      case FRAME.continuation:
        if (this.#block === undefined)
          return { kind: "protocol", message: "a CONTINUATION frame without a header block" };
        return this.#fragment(payload, flags);
      case FRAME.data:
        return this.#data(flags, streamId, payload);
      case FRAME.pushPromise:
        return { kind: "protocol", message: "a PUSH_PROMISE though push is disabled" };
      default:
        // PRIORITY, WINDOW_UPDATE (our request fits the initial window) and unknown types: nothing to do.
        return;
    }
  }

  #settings(flags: number, streamId: number, payload: Buffer, replies: Buffer[]): CallFailure | undefined {
    const ack = (flags & FLAG.ack) !== 0;
    if (streamId !== 0 || (ack ? payload.length !== 0 : payload.length % 6 !== 0))
      return { kind: "protocol", message: "a malformed SETTINGS frame" };
    if (ack) return;
    replies.push(encodeFrame(FRAME.settings, FLAG.ack, 0));
    if (this.#sawSettings) return;
    this.#sawSettings = true;
    this.#handlers.settings();
  }

  #headers(flags: number, streamId: number, payload: Buffer): CallFailure | undefined {
    if (streamId !== STREAM)
      return {
        kind: "protocol",
        message: `a HEADERS frame on stream ${streamId}, which we never opened`,
      };
    const fragment = unpad(payload, flags, (flags & FLAG.priority) !== 0 ? 5 : 0);
    if (fragment === undefined) return { kind: "protocol", message: "a HEADERS frame with bad padding" };
    this.#block = [];
    this.#blockBytes = 0;
    this.#blockEndsStream = (flags & FLAG.endStream) !== 0;
    return this.#fragment(fragment, flags);
  }

  #fragment(fragment: Buffer, flags: number): CallFailure | undefined {
    const block = this.#block ?? [];
    this.#blockBytes += fragment.length;
    if (this.#blockBytes > HEADER_LIST_LIMITS.maxBytes) return { kind: "headersTooLarge" };
    block.push(fragment);
    if ((flags & FLAG.endHeaders) === 0) return;
    this.#block = undefined;
    let fields: HeaderFields;
    try {
      fields = this.#hpack.decode(
        block.length === 1 ? (block[0] as Buffer) : Buffer.concat(block),
        HEADER_LIST_LIMITS,
      );
    } catch (err) {
      if (err instanceof HeaderListTooLargeError) return { kind: "headersTooLarge" };
      if (err instanceof HpackError)
        return {
          kind: "protocol",
          message: `headers that cannot be decoded (HPACK: ${err.message})`,
        };
      throw err;
    }
    if (!this.#responded) {
      this.#responded = true;
      this.#handlers.response(fields, this.#blockEndsStream);
      return;
    }
    if (!this.#blockEndsStream)
      return { kind: "protocol", message: "a second header block that does not end the stream" };
    this.#handlers.trailers(fields);
  }

  #data(flags: number, streamId: number, payload: Buffer): CallFailure | undefined {
    if (streamId !== STREAM || !this.#responded)
      return { kind: "protocol", message: "a DATA frame before the response headers" };
    const body = unpad(payload, flags, 0);
    if (body === undefined) return { kind: "protocol", message: "a DATA frame with bad padding" };
    if (body.length > 0) this.#handlers.data(body);
    return (flags & FLAG.endStream) !== 0 ? { kind: "endedWithoutTrailers" } : undefined;
  }
}

/** A frame's content without its padding and `skip` leading bytes (HEADERS' priority); undefined when malformed. */
function unpad(payload: Buffer, flags: number, skip: number): Buffer | undefined {
  if ((flags & FLAG.padded) === 0) return skip <= payload.length ? payload.subarray(skip) : undefined;
  const padding = payload[0] ?? 0;
  const start = 1 + skip;
  const end = payload.length - padding;
  return payload.length >= 1 && end >= start ? payload.subarray(start, end) : undefined;
}
