/** A logger for tests: keeps lines in memory (printed only when SWH_TEST_LOGS=1). */
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@swh/kube";

export function testLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      if (process.env.SWH_TEST_LOGS === "1") process.stderr.write(chunk);
      done();
    },
  });
  return { logger: createLogger({ level: "debug", stream }), lines };
}
