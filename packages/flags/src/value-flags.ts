/**
 * Flags that read one kind of value, declared with their default as that value (written once: `--help` prints it
 * and `read` applies it): an integer in a range, a duration, a set of names, a boolean.
 */
import type { FlagSpec } from "./flag-spec.js";
import { parseDurationFlag } from "./parse-duration.js";
import { parseIntegerFlag, parseNameSetFlag } from "./parse-values.js";

/** What `--help` says about a flag. */
type Described = Pick<FlagSpec, "value" | "short" | "help">;

/** An integer flag in `min..max` (`--help` adds the range to `help`), `fallback` when not given. */
export function integerFlag(spec: Described & { fallback: number; min: number; max: number }) {
  const { fallback, min, max, ...described } = spec;
  return {
    ...described,
    help: `${spec.help}, ${min}..${max}`,
    default: String(fallback),
    read: (given: string | undefined, flag: string) =>
      parseIntegerFlag(flag, given ?? String(fallback), { min, max }),
  } satisfies FlagSpec;
}

/** A duration flag (`90s`, `5m`) read as milliseconds, `fallback` (a duration) when not given. */
export function durationFlag(spec: Described & { fallback: string }) {
  const { fallback, ...described } = spec;
  return {
    ...described,
    default: fallback,
    read: (given: string | undefined, flag: string) => {
      const read = parseDurationFlag(flag, given ?? fallback);
      return read.ok ? { ok: true as const, value: read.ms } : read;
    },
  } satisfies FlagSpec;
}

/** A comma-separated set of names matching `pattern` (`parseNameSetFlag`); none when not given. */
export function nameSetFlag(spec: Described & { default: string; pattern: RegExp; what: string }) {
  const { pattern, what, ...described } = spec;
  return {
    ...described,
    read: (given: string | undefined, flag: string) => parseNameSetFlag(flag, given ?? "", { pattern, what }),
  } satisfies FlagSpec;
}

/** A boolean flag (`--name`, `--name=false`, `--name false`), `fallback` when not given. */
export function booleanFlag(spec: Omit<Described, "value"> & { fallback: boolean }) {
  const { fallback, ...described } = spec;
  return {
    ...described,
    type: "boolean" as const,
    default: String(fallback),
    // The parser has refused anything but true and false.
    read: (given: string | undefined) => ({
      ok: true as const,
      value: given === undefined ? fallback : given === "true",
    }),
  } satisfies FlagSpec;
}
