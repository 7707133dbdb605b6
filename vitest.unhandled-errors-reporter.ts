import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Reporter } from "vitest/node";

/**
 * Writes the run's unhandled errors to `outputFile` (`{ "unhandledErrors": ["Error: read ECONNRESET", …] }`).
 * Vitest fails a run that caught an unhandled error, but its JSON report still says `success: true` with no failed
 * test, so `scripts/summarize-reports.mjs` reads this file to count each such error as a failure.
 */
export class UnhandledErrorsReporter implements Reporter {
  private readonly outputFile: string;

  constructor(outputFile: string) {
    this.outputFile = outputFile;
  }

  onTestRunEnd(_modules: unknown, unhandledErrors: ReadonlyArray<{ name?: string; message?: string }>): void {
    const lines = unhandledErrors.map(
      (e) => `${e.name ?? "Error"}: ${String(e.message ?? "").split("\n")[0]}`,
    );
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, `${JSON.stringify({ unhandledErrors: lines }, null, 2)}\n`);
  }
}
