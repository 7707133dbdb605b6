/**
 * What the probe sends in HPACK: literal fields without indexing and without Huffman coding (RFC 7541 §6.2.2),
 * so the request needs no encoder state, and indexed fields of the static table. Values are ASCII (the caller's).
 */

/** An integer with a `prefix`-bit prefix, the prefix's other bits `flags` (RFC 7541 §5.1). */
function integer(value: number, prefix: number, flags: number): number[] {
  const mask = (1 << prefix) - 1;
  if (value < mask) return [flags | value];
  const out = [flags | mask];
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

/** A raw string literal: its length (H = 0) and its bytes. */
function stringLiteral(text: string): Buffer {
  const bytes = Buffer.from(text, "latin1");
  return Buffer.concat([Buffer.from(integer(bytes.length, 7, 0)), bytes]);
}

/** The static table's entry `index` as one indexed field (RFC 7541 §6.1). */
export function indexedField(index: number): Buffer {
  return Buffer.from(integer(index, 7, 0x80));
}

/** A literal field without indexing: the name by static index (a number) or as a literal (a string). */
export function literalField(name: number | string, value: string): Buffer {
  const head =
    typeof name === "number"
      ? Buffer.from(integer(name, 4, 0))
      : Buffer.concat([Buffer.of(0), stringLiteral(name)]);
  return Buffer.concat([head, stringLiteral(value)]);
}
