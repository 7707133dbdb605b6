/**
 * The few DER (ASN.1 Distinguished Encoding Rules, X.690) encoders a self-signed X.509 certificate needs. Encoding
 * only: node:crypto parses certificates (`X509Certificate`) and signs, but cannot build one. Each function returns
 * one complete TLV (tag, length, value).
 */

/** One DER element: tag byte, definite length, content. */
function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

/** SEQUENCE of already encoded elements. */
export function sequence(...items: readonly Uint8Array[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

/** SET of already encoded elements (DER sorts a SET OF; callers pass one element). */
export function set(...items: readonly Uint8Array[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** INTEGER from a non-negative big-endian magnitude (leading zeros stripped, a 0x00 added when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const bytes = Buffer.from(magnitude.subarray(start));
  const body = bytes.length === 0 ? Buffer.from([0]) : bytes;
  return tlv(0x02, (body[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), body]) : body);
}

/** INTEGER from a small non-negative number. */
export function smallInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff)
    throw new RangeError(`bad INTEGER ${value}`);
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return unsignedInteger(bytes);
}

/** BOOLEAN. */
export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/** OBJECT IDENTIFIER from dotted text (`1.2.840.10045.4.3.2`). */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map((arc) => {
    if (!/^\d+$/.test(arc)) throw new RangeError(`bad OID ${dotted}`);
    return BigInt(arc);
  });
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined) throw new RangeError(`bad OID ${dotted}`);
  const bytes: number[] = [];
  for (const arc of [first * 40n + second, ...rest]) {
    const group: number[] = [Number(arc & 0x7fn)];
    for (let v = arc >> 7n; v > 0n; v >>= 7n) group.unshift(Number(v & 0x7fn) | 0x80);
    bytes.push(...group);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTF8String. */
export function utf8String(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, "utf8"));
}

/** OCTET STRING. */
export function octetString(content: Uint8Array): Buffer {
  return tlv(0x04, content);
}

/** BIT STRING of whole bytes, or with `unusedBits` (0..7) trailing bits of the last byte unused. */
export function bitString(content: Uint8Array, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/**
 * Time as RFC 5280 wants it: UTCTime (`YYMMDDHHMMSSZ`) for 1950–2049, GeneralizedTime (`YYYYMMDDHHMMSSZ`) after,
 * whole seconds.
 */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(digits.slice(2), "ascii"));
  return tlv(0x18, Buffer.from(digits, "ascii"));
}

/** Context-specific constructed tag `[n]` around already encoded content (EXPLICIT tagging). */
export function explicit(n: number, content: Uint8Array): Buffer {
  return tlv(0xa0 | n, content);
}

/** Context-specific primitive tag `[n]` (IMPLICIT tagging of a primitive type, e.g. a GeneralName). */
export function implicitPrimitive(n: number, content: Uint8Array): Buffer {
  return tlv(0x80 | n, content);
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let v = length; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
