/**
 * Replays responses recorded from real servers — nginx, HAProxy and Node's http (scripts/record-http-corpus.ts) —
 * with random read splits, and checks the reader against what Node's own client (llhttp) read from the same
 * server: the same status and the same first 4 KiB of body. Then a few of them through the whole probe, from a
 * real socket that writes them in pieces and never closes.
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ResponseReader } from "../src/internal/http-response-reader.js";
import { MAX_BODY_BYTES, MAX_HEAD_BYTES, probeHttp } from "../src/probe-http.js";
import { startTcpServer } from "./helpers/servers.js";
import { splitAt } from "./helpers/split-reads.js";

interface CorpusEntry {
  file: string;
  server: string;
  method: "GET" | "HEAD";
  path: string;
  status: number;
  bodyBase64: string;
}

const DIR = new URL("./fixtures/http-corpus/", import.meta.url);
const CORPUS = (JSON.parse(readFileSync(new URL("index.json", DIR), "utf8")) as CorpusEntry[]).map((e) => ({
  ...e,
  bytes: readFileSync(new URL(e.file, DIR)),
  body: Buffer.from(e.bodyBase64, "base64"),
}));

describe("the recorded corpus", () => {
  it("holds responses of all three servers, chunked ones with trailers, interim ones and HEAD ones", () => {
    expect(new Set(CORPUS.map((e) => e.server))).toEqual(new Set(["nginx", "haproxy", "node"]));
    const text = CORPUS.map((e) => e.bytes.toString("latin1").toLowerCase());
    expect(text.filter((t) => t.includes("transfer-encoding: chunked")).length).toBeGreaterThanOrEqual(6);
    expect(text.filter((t) => t.includes("x-checksum: abc123")).length).toBeGreaterThanOrEqual(2);
    expect(text.filter((t) => t.startsWith("http/1.1 103")).length).toBeGreaterThanOrEqual(2);
    expect(CORPUS.filter((e) => e.method === "HEAD").length).toBeGreaterThanOrEqual(3);
  });

  it.each(CORPUS.map((e) => [e.file, e] as const))(
    "%s reads as Node's client read it, however it is split",
    (_, entry) => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: entry.bytes.length - 1 }), { maxLength: 30 }),
          (cuts) => {
            const reader = new ResponseReader({
              method: entry.method,
              maxHeadBytes: MAX_HEAD_BYTES,
              maxBodyBytes: MAX_BODY_BYTES,
            });
            let outcome = reader.push(Buffer.alloc(0));
            for (const part of splitAt(entry.bytes, cuts)) {
              outcome = reader.push(part);
              if (outcome.kind !== "more") break;
            }
            // Every recorded response is framed (or close-delimited, then the recording ends at the close).
            if (outcome.kind === "more") outcome = reader.end();
            expect(outcome).toMatchObject({ kind: "complete", head: { status: entry.status } });
            expect(outcome.kind === "complete" && outcome.body.equals(entry.body)).toBe(true);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it.each(CORPUS.filter((e) => !e.file.includes("-head")).map((e) => [e.file, e] as const))(
    "%s through probeHttp from a server that writes it in pieces and keeps the connection open",
    async (_, entry) => {
      const server = await startTcpServer("127.0.0.1", (socket: Socket) => {
        socket.setNoDelay(true);
        socket.once("data", async () => {
          for (const part of splitAt(entry.bytes, [7, 40, entry.bytes.length - 3])) {
            await new Promise((resolve) => socket.write(part, resolve));
          }
          // A close-delimited body ends only with the close; every other response must complete without it.
          if (!/\r\n(content-length|transfer-encoding):/i.test(entry.bytes.toString("latin1"))) socket.end();
        });
      });
      const result = await probeHttp(
        { host: "127.0.0.1", port: server.port },
        { code: [entry.status] },
        { timeoutMs: 10_000 },
      );
      expect(result).toMatchObject({ ok: true, message: expect.stringContaining(`HTTP ${entry.status}`) });
    },
  );
});
