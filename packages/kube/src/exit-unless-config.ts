/**
 * The command-line edge of both apps: a parsed configuration goes on; `--help`, `--version` and bad flags end the
 * process here, the same way for every program (usage and version on stdout with exit 0, the error and the usage on
 * stderr with exit 2, as Go's `flag` package does).
 */
import type { ParseResult } from "@swh/flags";

/** The program as its command line presents it. */
export interface ProgramInfo {
  /** The executable's name, e.g. `swh-agent`. */
  name: string;
  version: string;
  /** The `--help` text (see `formatUsage`). */
  usage: string;
}

/** Returns the config of `parsed`, or answers `--help`/`--version` (exit 0) or a bad flag (exit 2) and exits. */
export function exitUnlessConfig<Config>(parsed: ParseResult<Config>, program: ProgramInfo): Config {
  if (!parsed.ok) {
    process.stderr.write(`${program.name}: ${parsed.error}\n\n${program.usage}`);
    process.exit(2);
  }
  if ("help" in parsed) {
    process.stdout.write(program.usage);
    process.exit(0);
  }
  if ("version" in parsed) {
    process.stdout.write(`${program.name} ${program.version}\n`);
    process.exit(0);
  }
  return parsed.config;
}
