/**
 * Pure parser for the head of an HTTP/1.x response (status line + header fields), bytes in, data out, following
 * RFC 9112. The probe needs the status code and the message framing (where the body ends), so only the framing
 * fields are interpreted; anything that makes the framing ambiguous is rejected rather than guessed:
 * - lines end in CRLF or a bare LF (§2.2 lets a recipient accept LF alone; servers written by hand send it), a
 *   bare CR is an error;
 * - Transfer-Encoding wins over Content-Length (§6.1) and chunked must be its final coding to frame the body,
 *   otherwise the body runs to the close (§6.3 rule 4); an HTTP/1.0 response with Transfer-Encoding is faulty
 *   framing and is read to the close too;
 * - several Content-Length values (repeated fields or a list) must all agree, else the response is refused
 *   (§6.3 rule 5: a user agent MUST discard it);
 * - obsolete line folding is replaced by a space (§5.2), whitespace before a field's colon is an error (§5.1).
 */

/** How the body of a response is delimited (RFC 9112 §6.3). */
export type BodyFraming =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "close" };

/** The parsed head of a response; `headLength` is the byte length including the empty line that ends it. */
export interface ResponseHead {
  status: number;
  reason: string;
  /** How the body is framed, before the method and status are considered (see `bodyFraming`). */
  framing: Exclude<BodyFraming, { kind: "none" }>;
  /** The header fields in order: lower-cased names, values trimmed (folded lines joined with a space). */
  fields: Array<[string, string]>;
  headLength: number;
}

/** Result of parsing buffered bytes: a head, "incomplete" (need more bytes), or a protocol error message. */
export type HeadParse =
  | { kind: "head"; head: ResponseHead }
  | { kind: "incomplete" }
  | { kind: "error"; message: string };

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/s;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const LF = 0x0a;
const CR = 0x0d;
const PREFIX = Buffer.from("HTTP/");

/**
 * Returns the offset just past the empty line that ends a head or trailer section starting at `from` (CRLF or
 * bare LF line ends), or -1 when it has not arrived yet. `from` must be the start of a line.
 */
export function findSectionEnd(buf: Buffer, from: number): number {
  let lineStart = from;
  for (let i = buf.indexOf(LF, from); i !== -1; i = buf.indexOf(LF, i + 1)) {
    const length = i - lineStart;
    if (length === 0 || (length === 1 && buf[lineStart] === CR)) return i + 1;
    lineStart = i + 1;
  }
  return -1;
}

/**
 * Splits a section into its lines, dropping each line's CR; null when a bare CR is found (RFC 9112 §2.2).
 * One loop over the array `split` made, no per-line closures: it runs for every probe (see ADR 0028).
 */
export function splitLines(section: string): string[] | null {
  const lines = section.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const cr = line.indexOf("\r");
    if (cr === -1) continue;
    if (cr !== line.length - 1) return null;
    lines[i] = line.slice(0, -1);
  }
  return lines;
}

/** Parses the response head at the start of `buf`; `maxHeadBytes` bounds the head (an endless head is an error). */
export function parseResponseHead(buf: Buffer, maxHeadBytes: number): HeadParse {
  // Compared byte by byte: two `subarray` views per read cost more than the comparison.
  for (let i = 0; i < PREFIX.length && i < buf.length; i++)
    if (buf[i] !== PREFIX[i]) return { kind: "error", message: "response does not start with HTTP/" };
  const end = findSectionEnd(buf, 0);
  if (end === -1 ? buf.length > maxHeadBytes : end > maxHeadBytes)
    return { kind: "error", message: `response head larger than ${maxHeadBytes} bytes` };
  if (end === -1) return { kind: "incomplete" };
  const lines = splitLines(buf.toString("latin1", 0, end));
  if (!lines) return { kind: "error", message: "bare CR in the response head" };
  const statusLine = lines[0] ?? "";
  const match = STATUS_LINE.exec(statusLine);
  if (!match)
    return { kind: "error", message: `malformed status line ${JSON.stringify(statusLine.slice(0, 80))}` };
  // The section ends with an empty line, so `split` leaves two empty strings at its end.
  const fields = parseFields(lines, 1, lines.length - 2);
  if (typeof fields === "string") return { kind: "error", message: fields };
  const framing = framingOf(fields, match[1] === "0");
  if (typeof framing === "string") return { kind: "error", message: framing };
  return {
    kind: "head",
    head: { status: Number(match[2]), reason: match[3] ?? "", framing, fields, headLength: end },
  };
}

/**
 * Parses the header (or trailer) field lines `lines[from..to)` into lower-cased names and values; a string is an
 * error message. Indices instead of a sliced copy, and plain loops, because this runs for every probe.
 */
export function parseFields(
  lines: readonly string[],
  from = 0,
  to = lines.length,
): Array<[string, string]> | string {
  const fields: Array<[string, string]> = [];
  for (let i = from; i < to; i++) {
    const line = lines[i] as string;
    const first = line.charCodeAt(0);
    if (first === 0x20 || first === 0x09) {
      const last = fields[fields.length - 1];
      if (!last) return `malformed header line ${JSON.stringify(line.slice(0, 80))}`;
      last[1] = `${last[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name)) return `malformed header line ${JSON.stringify(line.slice(0, 80))}`;
    fields.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return fields;
}

/** The last non-empty transfer coding of all Transfer-Encoding fields, or null when there is no such field. */
function lastTransferCoding(fields: ReadonlyArray<[string, string]>): string | null {
  let last: string | null = null;
  for (const [name, value] of fields) {
    if (name !== "transfer-encoding") continue;
    last ??= "";
    for (const item of value.split(",")) {
      const coding = item.trim();
      if (coding !== "") last = coding;
    }
  }
  return last;
}

function framingOf(
  fields: ReadonlyArray<[string, string]>,
  http10: boolean,
): ResponseHead["framing"] | string {
  const coding = lastTransferCoding(fields);
  if (coding !== null)
    return !http10 && coding.toLowerCase() === "chunked" ? { kind: "chunked" } : { kind: "close" };
  let length: number | undefined;
  // Only a second, different value needs the set (for the error message listing them all).
  let distinct: Set<number> | undefined;
  for (const [name, value] of fields) {
    if (name !== "content-length") continue;
    for (const item of value.split(",")) {
      const text = item.trim();
      if (!/^\d{1,15}$/.test(text)) return `invalid Content-Length ${JSON.stringify(value.slice(0, 40))}`;
      const n = Number(text);
      if (length === undefined) length = n;
      else if (n !== length) {
        distinct ??= new Set([length]);
        distinct.add(n);
      }
    }
  }
  if (distinct) return `conflicting Content-Length values ${[...distinct].join(", ")}`;
  return length === undefined ? { kind: "close" } : { kind: "length", length };
}

/** The framing of a response body once the request method is known: none for HEAD, 1xx, 204 and 304 (§6.3). */
export function bodyFraming(head: ResponseHead, method: string): BodyFraming {
  const { status } = head;
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) return { kind: "none" };
  return head.framing;
}
