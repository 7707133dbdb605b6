/**
 * Pure parser for the head of an HTTP/1.x response (status line + header fields), bytes in, data out. The probe
 * needs only the status code and enough framing to know when the (dropped) body ends, so this is deliberately
 * small; it rejects anything malformed rather than guessing.
 */

/** The parsed head of a response; `headLength` is the byte length including the final CRLFCRLF. */
export interface ResponseHead {
  status: number;
  reason: string;
  contentLength?: number;
  chunked: boolean;
  headLength: number;
}

/** Result of feeding buffered bytes: a head, "incomplete" (need more bytes), or a protocol error message. */
export type HeadParse =
  | { kind: "head"; head: ResponseHead }
  | { kind: "incomplete" }
  | { kind: "error"; message: string };

const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/;

/** Parses the response head at the start of `buf`; `maxHeadBytes` bounds the head (an endless head is an error). */
export function parseResponseHead(buf: Buffer, maxHeadBytes: number): HeadParse {
  const end = buf.indexOf(HEAD_END);
  if (end === -1) {
    if (buf.length > maxHeadBytes)
      return { kind: "error", message: `response head larger than ${maxHeadBytes} bytes` };
    if (buf.length >= 5 && !buf.subarray(0, 5).equals(Buffer.from("HTTP/")))
      return { kind: "error", message: "response does not start with HTTP/" };
    return { kind: "incomplete" };
  }
  if (end + 4 > maxHeadBytes)
    return { kind: "error", message: `response head larger than ${maxHeadBytes} bytes` };
  const lines = buf.subarray(0, end).toString("latin1").split("\r\n");
  const match = STATUS_LINE.exec(lines[0] ?? "");
  if (!match)
    return {
      kind: "error",
      message: `malformed status line ${JSON.stringify((lines[0] ?? "").slice(0, 80))}`,
    };
  const head: ResponseHead = {
    status: Number(match[1]),
    reason: match[2] ?? "",
    chunked: false,
    headLength: end + 4,
  };
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0)
      return { kind: "error", message: `malformed header line ${JSON.stringify(line.slice(0, 80))}` };
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-length") {
      if (!/^\d+$/.test(value))
        return { kind: "error", message: `invalid Content-Length ${JSON.stringify(value)}` };
      head.contentLength = Number(value);
    } else if (name === "transfer-encoding") {
      head.chunked = value.toLowerCase().split(",").at(-1)?.trim() === "chunked";
    }
  }
  return { kind: "head", head };
}

/** True when a response with this status to this method carries no body (RFC 9112 §6.3). */
export function hasNoBody(status: number, method: string): boolean {
  return method === "HEAD" || (status >= 100 && status < 200) || status === 204 || status === 304;
}
