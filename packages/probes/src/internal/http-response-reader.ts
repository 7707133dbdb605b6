/**
 * Incremental reader of one HTTP/1.x response, bytes in, data out: a state machine fed the socket's reads as
 * they come, however the bytes are split, that says when the response is complete (RFC 9112 §6.3 framing,
 * chunked coding with extensions and trailers per §7.1) and keeps the first `maxBodyBytes` of the body
 * (de-chunked) for a body match. Interim 1xx responses are skipped. It never waits for the close when the framing
 * says the message ended, so a server that ignores `Connection: close` still gives its status.
 *
 * Bounds: the head and the trailer section each at most `maxHeadBytes`, a chunk-size line at most
 * `MAX_CHUNK_LINE_BYTES`; once `maxBodyBytes` of body arrived the response counts as complete (the rest is never
 * read), so memory stays bounded whatever the server sends.
 */
import {
  bodyFraming,
  findSectionEnd,
  parseFields,
  parseResponseHead,
  type ResponseHead,
  splitLines,
} from "./http-response-head.js";

/** Longest chunk-size line (size, extensions, line end) accepted. */
const MAX_CHUNK_LINE_BYTES = 4096;

/** What the reader knows after a read: need more bytes, the complete response, or why it is malformed. */
export type ReadOutcome =
  | { kind: "more" }
  | { kind: "complete"; head: ResponseHead; body: Buffer; bodyTruncated: boolean }
  | { kind: "error"; message: string };

/** Limits of one read response. */
export interface ResponseReaderOptions {
  method: string;
  maxHeadBytes: number;
  maxBodyBytes: number;
}

type State =
  | { at: "head" }
  | { at: "length"; remaining: number }
  | { at: "close" }
  | { at: "chunk-size" }
  | { at: "chunk-data"; remaining: number }
  | { at: "chunk-end" }
  | { at: "trailers" }
  | { at: "done"; outcome: ReadOutcome };

const CHUNK_LINE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/s;
const LF = 0x0a;
/** Shared empty buffer: nothing pending (a zero-length Buffer is never written to). */
const EMPTY = Buffer.alloc(0);

/** Reads one response from successive `push`es, then `end` when the peer closed; see the file comment. */
export class ResponseReader {
  private state: State = { at: "head" };
  private pending: Buffer = EMPTY;
  private head: ResponseHead | undefined;
  private readonly body: Buffer[] = [];
  private bodyBytes = 0;

  private readonly opts: ResponseReaderOptions;

  constructor(opts: ResponseReaderOptions) {
    this.opts = opts;
  }

  /** The final response's head once it was read (also when the body later turns out malformed). */
  get responseHead(): ResponseHead | undefined {
    return this.head;
  }

  /** Feeds the next bytes read; once complete or in error, further bytes are ignored. */
  push(chunk: Buffer): ReadOutcome {
    if (this.state.at === "done") return this.state.outcome;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const step = this.step();
      if (step !== "again") return step;
    }
  }

  /** The peer closed the connection: complete when the body runs to the close, else an error. */
  end(): ReadOutcome {
    const { state } = this;
    if (state.at === "done") return state.outcome;
    if (state.at === "close") return this.complete(false);
    if (state.at === "head") return this.fail("connection closed before a complete response head");
    return this.fail(`connection closed before the end of the response body (${this.bodyBytes} bytes read)`);
  }

  private step(): ReadOutcome | "again" {
    const { state } = this;
    switch (state.at) {
      case "head":
        return this.readHead();
      case "length": {
        const take = this.take(state.remaining);
        state.remaining -= take;
        if (this.bodyFull()) return this.complete(true);
        return state.remaining === 0 ? this.complete(false) : { kind: "more" };
      }
      case "close":
        this.take(this.pending.length);
        return this.bodyFull() ? this.complete(true) : { kind: "more" };
      case "chunk-size": {
        const line = this.readLine(MAX_CHUNK_LINE_BYTES, "chunk-size line");
        if (typeof line !== "string") return line;
        const match = CHUNK_LINE.exec(line);
        if (!match) return this.fail(`malformed chunk-size line ${JSON.stringify(line.slice(0, 40))}`);
        const size = Number.parseInt(match[1] as string, 16);
        this.state = size === 0 ? { at: "trailers" } : { at: "chunk-data", remaining: size };
        return "again";
      }
      case "chunk-data": {
        state.remaining -= this.take(state.remaining);
        if (this.bodyFull()) return this.complete(true);
        if (state.remaining > 0) return { kind: "more" };
        this.state = { at: "chunk-end" };
        return "again";
      }
      case "chunk-end": {
        const line = this.readLine(2, "chunk end");
        if (typeof line !== "string") return line;
        if (line !== "") return this.fail("chunk data longer than its size");
        this.state = { at: "chunk-size" };
        return "again";
      }
      case "trailers": {
        const end = findSectionEnd(this.pending, 0);
        if (end === -1)
          return this.pending.length > this.opts.maxHeadBytes
            ? this.fail(`trailer section larger than ${this.opts.maxHeadBytes} bytes`)
            : { kind: "more" };
        const lines = splitLines(this.pending.toString("latin1", 0, end));
        const fields =
          lines === null ? "bare CR in the trailer section" : parseFields(lines, 0, lines.length - 2);
        if (typeof fields === "string") return this.fail(fields);
        return this.complete(false);
      }
      case "done":
        return state.outcome;
    }
  }

  private readHead(): ReadOutcome | "again" {
    const parsed = parseResponseHead(this.pending, this.opts.maxHeadBytes);
    if (parsed.kind === "incomplete") return { kind: "more" };
    if (parsed.kind === "error") return this.fail(parsed.message);
    const { head } = parsed;
    this.pending = this.pending.subarray(head.headLength);
    // Interim responses (103 Early Hints, a stray 100) precede the real one; 101 ends the exchange.
    if (head.status < 200 && head.status !== 101) return "again";
    this.head = head;
    const framing = bodyFraming(head, this.opts.method);
    if (framing.kind === "none" || (framing.kind === "length" && framing.length === 0))
      return this.complete(false);
    this.state =
      framing.kind === "length"
        ? { at: "length", remaining: framing.length }
        : { at: framing.kind === "chunked" ? "chunk-size" : "close" };
    return "again";
  }

  /** Moves up to `max` pending bytes into the kept body prefix (beyond `maxBodyBytes` they are dropped). */
  private take(max: number): number {
    const n = Math.min(max, this.pending.length);
    const room = this.opts.maxBodyBytes - this.bodyBytes;
    if (room > 0) this.body.push(this.pending.subarray(0, Math.min(n, room)));
    this.bodyBytes += n;
    this.pending = this.pending.subarray(n);
    return n;
  }

  private bodyFull(): boolean {
    return this.bodyBytes >= this.opts.maxBodyBytes;
  }

  /** Reads one CRLF- or LF-terminated line of at most `max` bytes (without its end); or more/error. */
  private readLine(max: number, what: string): string | ReadOutcome {
    const lf = this.pending.indexOf(LF);
    if (lf === -1)
      return this.pending.length >= max ? this.fail(`${what} longer than ${max} bytes`) : { kind: "more" };
    if (lf > max) return this.fail(`${what} longer than ${max} bytes`);
    const raw = this.pending.subarray(0, lf).toString("latin1");
    this.pending = this.pending.subarray(lf + 1);
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    return line.includes("\r") ? this.fail(`bare CR in a ${what}`) : line;
  }

  private complete(truncated: boolean): ReadOutcome {
    const head = this.head as ResponseHead;
    // `take` keeps at most maxBodyBytes; one piece (the usual small body in one read) needs no copy.
    const body = this.body.length === 1 ? (this.body[0] as Buffer) : Buffer.concat(this.body);
    return this.settle({ kind: "complete", head, body, bodyTruncated: truncated });
  }

  private fail(message: string): ReadOutcome {
    return this.settle({ kind: "error", message });
  }

  private settle(outcome: ReadOutcome): ReadOutcome {
    this.state = { at: "done", outcome };
    this.pending = EMPTY;
    return outcome;
  }
}
