/**
 * An HPACK decoder (RFC 7541) for the header blocks one HTTP/2 connection receives: indexed fields, literals with
 * and without indexing, the dynamic table with its size updates, Huffman strings. Input is untrusted: every count
 * and length is checked against what is left of the block, and the decoded list is bounded in fields and bytes
 * (bytes as HTTP/2 counts them for SETTINGS_MAX_HEADER_LIST_SIZE: name, value and 32 per field). Names and values
 * are returned as latin1 strings, one char per byte.
 */
import { HeaderListTooLargeError, HpackError } from "./hpack-error.js";
import { decodeHuffman } from "./huffman.js";
import { STATIC_TABLE } from "./static-table.js";

/** A decoded header list: by name, duplicates joined with ", " (a Map: names are the server's). */
export type HeaderFields = Map<string, string>;

/** Bounds on one decoded header list. */
export interface HeaderListLimits {
  maxFields: number;
  maxBytes: number;
}

/** Per-field overhead of an entry's size (RFC 7541 §4.1), in the dynamic table and in a header list's size. */
const ENTRY_OVERHEAD = 32;
/** Largest integer a field may carry: far above any index or length a bounded block can hold. */
const MAX_INTEGER = 2 ** 24;

/** Decodes the header blocks of one connection, in order (the dynamic table carries from one to the next). */
export class HpackDecoder {
  /** Newest entry first. */
  readonly #table: [string, string][] = [];
  #size = 0;
  #maxSize: number;
  readonly #limit: number;

  /** `tableSizeLimit`: the SETTINGS_HEADER_TABLE_SIZE this side advertised (4,096 by default). */
  constructor(tableSizeLimit = 4096) {
    this.#limit = tableSizeLimit;
    this.#maxSize = tableSizeLimit;
  }

  /** Decodes one complete header block; throws `HpackError` (or `HeaderListTooLargeError`). */
  decode(block: Buffer, limits: HeaderListLimits): HeaderFields {
    const fields: HeaderFields = new Map();
    let bytes = 0;
    let count = 0;
    let at = 0;
    while (at < block.length) {
      const first = block[at] ?? 0;
      let field: readonly [string, string];
      if (first & 0x80) {
        const index = this.#integer(block, at, 7);
        at = index.next;
        field = this.#entry(index.value);
      } else if ((first & 0xe0) === 0x20) {
        // A dynamic table size update: only before the block's first field (RFC 7541 §4.2).
        if (count > 0) throw new HpackError("a table size update after a header field");
        const size = this.#integer(block, at, 5);
        if (size.value > this.#limit)
          throw new HpackError(`a table size update to ${size.value}, over ${this.#limit}`);
        this.#maxSize = size.value;
        this.#evict(0);
        at = size.next;
        continue;
      } else {
        const indexing = (first & 0xc0) === 0x40;
        const name = this.#integer(block, at, indexing ? 6 : 4);
        at = name.next;
        let fieldName: string;
        if (name.value === 0) {
          const literal = this.#string(block, at);
          fieldName = literal.value;
          at = literal.next;
        } else fieldName = this.#entry(name.value)[0];
        const value = this.#string(block, at);
        at = value.next;
        field = [fieldName, value.value];
        if (indexing) this.#add(field);
      }
      count += 1;
      bytes += field[0].length + field[1].length + ENTRY_OVERHEAD;
      if (count > limits.maxFields || bytes > limits.maxBytes)
        throw new HeaderListTooLargeError(
          `header list over ${limits.maxFields} fields or ${limits.maxBytes} bytes`,
        );
      const before = fields.get(field[0]);
      fields.set(field[0], before === undefined ? field[1] : `${before}, ${field[1]}`);
    }
    return fields;
  }

  /** An integer with an `prefix`-bit prefix at `at` (RFC 7541 §5.1). */
  #integer(block: Buffer, at: number, prefix: number): { value: number; next: number } {
    const mask = (1 << prefix) - 1;
    let value = (block[at] ?? 0) & mask;
    let next = at + 1;
    if (value < mask) return { value, next };
    let shift = 0;
    for (;;) {
      if (next >= block.length) throw new HpackError("an integer runs past the end of the block");
      const byte = block[next] ?? 0;
      next += 1;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (value > MAX_INTEGER) throw new HpackError("an integer too large for any field");
      if ((byte & 0x80) === 0) return { value, next };
    }
  }

  /** A string literal at `at` (RFC 7541 §5.2), Huffman-coded or not. */
  #string(block: Buffer, at: number): { value: string; next: number } {
    if (at >= block.length) throw new HpackError("a string runs past the end of the block");
    const huffman = ((block[at] ?? 0) & 0x80) !== 0;
    const length = this.#integer(block, at, 7);
    const end = length.next + length.value;
    if (end > block.length) throw new HpackError("a string runs past the end of the block");
    const value = huffman
      ? decodeHuffman(block, length.next, end)
      : block.toString("latin1", length.next, end);
    return { value, next: end };
  }

  /** The static or dynamic table entry `index` (1-based, static first). */
  #entry(index: number): readonly [string, string] {
    if (index === 0) throw new HpackError("index 0");
    const entry =
      index <= STATIC_TABLE.length ? STATIC_TABLE[index - 1] : this.#table[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`index ${index} is in neither table`);
    return entry;
  }

  /** Adds `field` to the dynamic table, evicting the oldest entries to make room (RFC 7541 §4.4). */
  #add(field: readonly [string, string]): void {
    const size = field[0].length + field[1].length + ENTRY_OVERHEAD;
    if (size > this.#maxSize) {
      this.#table.length = 0;
      this.#size = 0;
      return;
    }
    this.#evict(size);
    this.#table.unshift([field[0], field[1]]);
    this.#size += size;
  }

  /** Evicts the oldest entries until `room` more bytes fit under the current maximum size. */
  #evict(room: number): void {
    while (this.#size + room > this.#maxSize) {
      const oldest = this.#table.pop();
      if (oldest === undefined) break;
      this.#size -= oldest[0].length + oldest[1].length + ENTRY_OVERHEAD;
    }
  }
}
