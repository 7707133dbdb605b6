/** Runs `swh-probe` in-process through `runCli` (the function bin/swh-probe.js calls), capturing what it prints. */
import { type CliIo, runCli } from "../../src/cli.js";

/** A deadline no probe on loopback needs, however loaded the machine: no CLI test expects a Timeout. */
export const TIMEOUT = ["--timeout", "10s"];
/** Asks for the JSON line (the default output is text). */
export const JSON_OUTPUT = ["--output", "json"];

/** Runs the CLI with `argv` and an empty environment; resolves to its exit code and output lines. */
export async function cli(...argv: string[]) {
  return cliWith({}, ...argv);
}

/** As {@link cli}, with parts of the CLI's I/O replaced. */
export async function cliWith(io: Partial<CliIo>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, ...io });
  return { code, out, err };
}
