/**
 * The gRPC probe's HPACK decoder: the Huffman code against RFC 7541's table and examples, every header block a
 * real encoder (nghttp2, through node:http2) writes for a session of requests, and each malformed block it must
 * refuse with an `HpackError` instead of a wrong header list.
 */
import { once } from "node:events";
import { connect as http2Connect } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HpackDecoder } from "../src/internal/hpack/decoder.js";
import { indexedField, literalField } from "../src/internal/hpack/encode.js";
import { HeaderListTooLargeError, HpackError } from "../src/internal/hpack/hpack-error.js";
import { decodeHuffman, huffmanCodes } from "../src/internal/hpack/huffman.js";

const LIMITS = { maxFields: 64, maxBytes: 16 * 1024 };
const hex = (text: string) => Buffer.from(text.replace(/\s/g, ""), "hex");

describe("the Huffman code", () => {
  it("rebuilds the RFC's codes from their lengths", () => {
    const codes = huffmanCodes();
    // Rows of RFC 7541 Appendix B: (symbol) code as hex [length].
    expect(codes[0]).toEqual({ code: 0x1ff8, length: 13 });
    expect(codes[1]).toEqual({ code: 0x7fffd8, length: 23 });
    expect(codes[9]).toEqual({ code: 0xffffea, length: 24 });
    expect(codes[10]).toEqual({ code: 0x3ffffffc, length: 30 });
    expect(codes[32]).toEqual({ code: 0x14, length: 6 }); // ' '
    expect(codes[48]).toEqual({ code: 0x0, length: 5 }); // '0'
    expect(codes[97]).toEqual({ code: 0x3, length: 5 }); // 'a'
    expect(codes[256]).toEqual({ code: 0x3fffffff, length: 30 }); // EOS
    // A prefix code: no code is the start of another.
    const bits = codes.map(({ code, length }) => code.toString(2).padStart(length, "0"));
    const sorted = [...bits].sort();
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]?.startsWith(sorted[i - 1] ?? "")).toBe(false);
  });

  it("decodes RFC 7541 C.4.1's www.example.com", () => {
    const bytes = hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff");
    expect(decodeHuffman(bytes, 0, bytes.length)).toBe("www.example.com");
  });

  it("refuses EOS inside a string and padding that is not all ones or longer than 7 bits", () => {
    // 'a' (00011) then 3 padding bits of zeros.
    expect(() => decodeHuffman(Buffer.of(0b00011000), 0, 1)).toThrow(/padding/);
    // 'a' then a whole byte of ones (11 bits of padding).
    expect(() => decodeHuffman(Buffer.of(0b00011111, 0xff), 0, 2)).toThrow(/padding/);
    // EOS: 30 ones, then two ones of padding.
    expect(() => decodeHuffman(Buffer.of(0xff, 0xff, 0xff, 0xff), 0, 4)).toThrow(/EOS/);
  });
});

describe("HpackDecoder", () => {
  it("decodes what the probe's own encoder writes", () => {
    const block = Buffer.concat([
      indexedField(8),
      literalField(31, "application/grpc"),
      literalField("grpc-status", "0"),
    ]);
    expect([...new HpackDecoder().decode(block, LIMITS)]).toEqual([
      [":status", "200"],
      ["content-type", "application/grpc"],
      ["grpc-status", "0"],
    ]);
  });

  it("decodes every header block nghttp2 writes on one session: Huffman, the dynamic table, eviction", async () => {
    const requests: Record<string, string>[] = [];
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    for (let i = 0; i < 40; i++)
      requests.push({
        ":method": "POST",
        ":path": `/svc.v1.Api/Call${i % 3}`,
        "content-type": "application/grpc",
        "x-every-byte": `\t${printable}`,
        // Long distinct values fill the 4,096-byte table, so older entries are evicted while later blocks run.
        [`x-request-${i % 7}`]: `value-${i}-${"z".repeat(300 + i)}`,
        "x-repeated": "the same value every time",
      });
    const blocks = await headerBlocksOf(requests);
    expect(blocks).toHaveLength(requests.length);
    const decoder = new HpackDecoder();
    blocks.forEach((block, i) => {
      const fields = decoder.decode(block, LIMITS);
      for (const [name, value] of Object.entries(requests[i] ?? {})) expect(fields.get(name)).toBe(value);
    });
  });

  it("keeps the dynamic table from one block to the next and follows a size update", () => {
    const decoder = new HpackDecoder();
    // Literal with incremental indexing, new name: x-a: one.
    const add = Buffer.concat([Buffer.of(0x40, 3), Buffer.from("x-a"), Buffer.of(3), Buffer.from("one")]);
    expect(decoder.decode(add, LIMITS).get("x-a")).toBe("one");
    // Index 62: the first dynamic entry.
    expect(decoder.decode(indexedField(62), LIMITS).get("x-a")).toBe("one");
    // A size update to 0 empties the table: index 62 names nothing any more.
    expect(() => decoder.decode(Buffer.concat([Buffer.of(0x20), indexedField(62)]), LIMITS)).toThrow(
      /index 62/,
    );
  });

  it("refuses malformed blocks with an HpackError", () => {
    const cases: [string, Buffer, RegExp][] = [
      ["index 0", Buffer.of(0x80), /index 0/],
      ["an index in neither table", indexedField(70), /neither table/],
      ["an integer past the end", Buffer.of(0xff, 0x80), /past the end/],
      ["an integer too large", Buffer.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), /too large/],
      ["a string past the end", Buffer.of(0x00, 0x05, 0x61), /past the end/],
      ["a size update over the limit", Buffer.of(0x3f, 0xe2, 0x1f), /over 4096/],
      [
        "a size update after a field",
        Buffer.concat([indexedField(8), Buffer.of(0x20)]),
        /after a header field/,
      ],
    ];
    for (const [what, block, message] of cases) {
      const decode = () => new HpackDecoder().decode(block, LIMITS);
      expect(decode, what).toThrow(HpackError);
      expect(decode, what).toThrow(message);
    }
  });

  it("stops at the list's bounds in fields and in bytes", () => {
    const many = Buffer.concat(Array.from({ length: 65 }, () => indexedField(8)));
    expect(() => new HpackDecoder().decode(many, LIMITS)).toThrow(HeaderListTooLargeError);
    const big = literalField("x-big", "b".repeat(200));
    expect(() => new HpackDecoder().decode(big, { maxFields: 64, maxBytes: 200 })).toThrow(
      HeaderListTooLargeError,
    );
  });
});

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * The header blocks a node:http2 client writes for `requests`, all on one session (one encoder), read off the
 * wire by a plain TCP server: HEADERS frames with their CONTINUATIONs joined, in order.
 */
async function headerBlocksOf(requests: readonly Record<string, string>[]): Promise<Buffer[]> {
  const received: Buffer[] = [];
  let peer: Socket | undefined;
  const server = createServer((socket) => {
    peer = socket;
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    // The server's SETTINGS, so the client starts sending its streams.
    socket.write(Buffer.of(0, 0, 0, 0x4, 0, 0, 0, 0, 0));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const session = http2Connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  session.on("error", () => {});
  for (const headers of requests) session.request(headers, { endStream: true }).on("error", () => {});
  const blocks = () => readHeaderBlocks(Buffer.concat(received));
  const deadline = Date.now() + 5_000;
  while (blocks().length < requests.length && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  session.destroy();
  peer?.destroy();
  return blocks();
}

function readHeaderBlocks(bytes: Buffer): Buffer[] {
  const blocks: Buffer[] = [];
  let at = 24; // the client preface
  let current: Buffer[] | undefined;
  while (at + 9 <= bytes.length) {
    const length = bytes.readUIntBE(at, 3);
    const type = bytes[at + 3];
    const flags = bytes[at + 4] ?? 0;
    if (at + 9 + length > bytes.length) break;
    const payload = bytes.subarray(at + 9, at + 9 + length);
    at += 9 + length;
    if (type === 0x1) {
      const pad = flags & 0x8 ? (payload[0] ?? 0) : 0;
      const skip = (flags & 0x8 ? 1 : 0) + (flags & 0x20 ? 5 : 0);
      current = [payload.subarray(skip, payload.length - pad)];
    } else if (type === 0x9) current?.push(payload);
    else continue;
    if (flags & 0x4 && current !== undefined) {
      blocks.push(Buffer.concat(current));
      current = undefined;
    }
  }
  return blocks;
}
