/**
 * The HPACK Huffman code (RFC 7541 Appendix B), decoding only: the probe never Huffman-encodes what it sends.
 * The code is canonical, so it is kept as the code length of each symbol (the table's `len` column, bytes 0-255
 * and EOS) and the codes are rebuilt from the lengths: within a length, consecutive codes in symbol order.
 * `test/hpack.test.ts` checks the rebuilt codes against the RFC's and decodes what nghttp2 encodes.
 */
import { HpackError } from "./hpack-error.js";

// biome-ignore format: the RFC's table, 16 symbols a row.
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30, // EOS
];
const EOS = 256;

/** Each symbol's code, rebuilt from `CODE_LENGTHS` (see the file comment). */
export function huffmanCodes(): { code: number; length: number }[] {
  const symbols = CODE_LENGTHS.map((_, symbol) => symbol).sort(
    (a, b) => (CODE_LENGTHS[a] ?? 0) - (CODE_LENGTHS[b] ?? 0) || a - b,
  );
  const codes: { code: number; length: number }[] = [];
  let code = 0;
  let length = CODE_LENGTHS[symbols[0] ?? 0] ?? 0;
  for (const symbol of symbols) {
    const next = CODE_LENGTHS[symbol] ?? 0;
    code *= 2 ** (next - length);
    length = next;
    codes[symbol] = { code, length };
    code += 1;
  }
  return codes;
}

/**
 * The decoding tree as one array: node `n` has its children at `tree[2n]` (bit 0) and `tree[2n + 1]` (bit 1); a
 * child `>= 0` is another node, `-1 - symbol` a leaf. Node 0 is the root.
 */
const TREE = buildTree();

function buildTree(): Int32Array {
  const tree = new Int32Array(2 * CODE_LENGTHS.length);
  let nodes = 1;
  for (const [symbol, { code, length }] of huffmanCodes().entries()) {
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) tree[slot] = -1 - symbol;
      else {
        if (tree[slot] === 0) tree[slot] = nodes++;
        node = tree[slot] ?? 0;
      }
    }
  }
  return tree;
}

/**
 * Decodes the Huffman-coded string `bytes[start, end)` as a latin1 string (header bytes, one char each). Throws
 * an `HpackError` for EOS inside the string or padding that is longer than 7 bits or not all ones (RFC 7541 §5.2).
 */
export function decodeHuffman(bytes: Uint8Array, start: number, end: number): string {
  let out = "";
  let node = 0;
  // Bits read since the last complete symbol, and whether all of them were ones (valid padding so far).
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i] ?? 0;
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      const next = TREE[2 * node + one] ?? 0;
      pending += 1;
      allOnes &&= one === 1;
      if (next >= 0) {
        node = next;
        continue;
      }
      const symbol = -1 - next;
      if (symbol === EOS) throw new HpackError("a Huffman string holds the EOS symbol");
      out += String.fromCharCode(symbol);
      node = 0;
      pending = 0;
      allOnes = true;
    }
  }
  if (pending > 7 || !allOnes) throw new HpackError("a Huffman string ends in invalid padding");
  return out;
}
