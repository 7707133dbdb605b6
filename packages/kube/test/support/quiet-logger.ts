import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/index.js";

/** A logger that keeps its lines in memory (printable on failure) instead of writing them to stdout. */
export function memoryLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return Object.assign(createLogger({ stream, level: "debug" }), { lines });
}
