/**
 * Command-line flags of both apps and of `swh-probe`, one parser on `node:util` `parseArgs`:
 * `--name=value` or `--name value` (the controller-runtime style operators know), booleans alone or with
 * `true`/`false`, a one-letter alias where a flag declares one (`-v`), `--help` (or `-h`) and `--version` anywhere.
 * Pure: argv in, the raw values by flag name (or an error naming the argument) out; each program keeps its own
 * flags, defaults and checks of the values, and prints `formatUsage` for `--help`.
 */
import { parseArgs } from "node:util";
import type { FlagSpec, FlagSpecs } from "./flag-spec.js";

/** Raw flag values by name and the positional arguments; or `--help`, `--version`, or an error naming the argument. */
export type ParsedFlags<Name extends string> =
  | {
      ok: true;
      /** The last value of each flag given. */
      values: ReadonlyMap<Name, string>;
      /** Every value of each flag given, in order. */
      lists: ReadonlyMap<Name, readonly string[]>;
      positionals: readonly string[];
    }
  | { ok: true; help: true }
  | { ok: true; version: true }
  | { ok: false; error: string };

/**
 * Reads `argv` (without the node and script paths) for the flags in `flags`. `--help` wins over `--version`, and
 * either over any error; otherwise an unknown flag, a missing value or (unless `positionals`) an argument that is
 * not a flag is an error naming it.
 */
export function parseFlags<const Name extends string>(
  argv: readonly string[],
  flags: FlagSpecs<Name>,
  opts: { positionals?: boolean } = {},
): ParsedFlags<Name> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    version: { type: "boolean" },
  };
  for (const [name, spec] of Object.entries<FlagSpec>(flags))
    options[name] = {
      type: spec.type ?? "string",
      ...(spec.short !== undefined ? { short: spec.short } : {}),
    };
  // Not strict: we name unknown flags ourselves, and read `--leader-elect false` the way Go programs do.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const given = (name: string) => tokens.some((t) => t.kind === "option" && t.name === name);
  if (given("help")) return { ok: true, help: true };
  if (given("version")) return { ok: true, version: true };

  const values = new Map<Name, string>();
  const lists = new Map<Name, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === undefined) continue;
    if (token.kind !== "option") {
      if (!opts.positionals || token.kind === "option-terminator")
        return { ok: false, error: `unexpected argument "${argv[token.index]}"` };
      positionals.push(token.value);
      continue;
    }
    const name = token.name;
    const short = isOneOf(name, flags) ? flags[name].short : undefined;
    const alias = short !== undefined && token.rawName === `-${short}`;
    if (!token.rawName.startsWith("--") && !alias)
      return { ok: false, error: `unexpected argument "${argv[token.index]}"` };
    if (!isOneOf(name, flags)) return { ok: false, error: `unknown flag --${name}` };
    let value = token.value;
    if (flags[name].type === "boolean") {
      const next = tokens[i + 1];
      if (
        value === undefined &&
        next?.kind === "positional" &&
        (next.value === "true" || next.value === "false")
      ) {
        value = next.value;
        i++;
      }
      value ??= "true";
      if (value !== "true" && value !== "false")
        return { ok: false, error: `--${name} must be true or false, got "${value}"` };
    }
    if (value === undefined) return { ok: false, error: `--${name} needs a value` };
    values.set(name, value);
    lists.set(name, [...(flags[name].multiple ? (lists.get(name) ?? []) : []), value]);
  }
  return { ok: true, values, lists, positionals };
}

function isOneOf<Name extends string>(name: string, flags: FlagSpecs<Name>): name is Name {
  return Object.hasOwn(flags, name);
}
