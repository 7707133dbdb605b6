import type { FlagEnv, FlagRead, FlagSpec, FlagSpecs } from "./flag-spec.js";
import { parseFlags } from "./parse-flags.js";

/** Each flag's value: what its `read` makes, or the text given (undefined: not given) for a flag without one. */
export type FlagValues<S extends FlagSpecs> = {
  readonly [K in keyof S]: S[K] extends { read(...args: never[]): FlagRead<infer T> }
    ? T
    : string | undefined;
};

/** The values of every flag; or `--help`, `--version`, or the first error, naming its flag. */
export type ReadFlags<S extends FlagSpecs> =
  | { ok: true; values: FlagValues<S> }
  | { ok: true; help: true }
  | { ok: true; version: true }
  | { ok: false; error: string };

/**
 * Reads `argv` (without the node and script paths) with `parseFlags`, then every flag of `flags` through its
 * `read` (given or not, so each default is applied where the flag is declared, once), in declaration order; the
 * first error is returned. `env` is what flags fall back to.
 */
export function readFlags<const S extends FlagSpecs>(
  argv: readonly string[],
  flags: S,
  env: FlagEnv = {},
): ReadFlags<S> {
  const parsed = parseFlags(argv, flags);
  if (!parsed.ok || !("values" in parsed)) return parsed;
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries<FlagSpec>(flags)) {
    const given = parsed.values.get(name);
    if (spec.read === undefined) {
      values[name] = given;
      continue;
    }
    const read = spec.read(given, `--${name}`, env);
    if (!read.ok) return read;
    values[name] = read.value;
  }
  return { ok: true, values: values as FlagValues<S> };
}
