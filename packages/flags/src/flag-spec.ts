/**
 * How a program declares its flags (`FlagSpecs`): each flag's name, placeholder, default, help and how its value
 * is read, in one place, for `readFlags` (typed values) or `parseFlags` (the raw text) and for `formatUsage`; and
 * the result shape every program's own configuration parser returns (`ParseResult`).
 */

/** One flag: how it reads, and what `--help` says about it. */
export interface FlagSpec {
  /**
   * `string` (the default) takes a value; `boolean` alone means true, and takes `=true`/`=false` or a following
   * `true`/`false` (any other following word stays an argument, so `--https 10.0.0.1:443` keeps its address).
   */
  type?: "string" | "boolean";
  /** A one-letter alias: `v` lets `-v` stand for the flag (`-h` is `--help`'s). */
  short?: string;
  /** May be given more than once: `lists` keeps every value in order (`values` the last). */
  multiple?: boolean;
  /** The value's placeholder in the usage, e.g. `PATH`. */
  value?: string;
  /** The default as `--help` shows it (the program applies it): a value, or words like "in-cluster config". */
  default: string;
  /** What the flag does, for `--help`. */
  help: string;
  /**
   * Makes the flag's value for `readFlags` from the text given (`undefined`: not given, so the default applies
   * here) and, where a flag falls back to one, the environment; an error names `flag` (`--name`). Without it
   * `readFlags` returns the text given.
   */
  read?(given: string | undefined, flag: string, env: FlagEnv): FlagRead<unknown>;
}

/** The environment variables a flag may fall back to (`LOG_LEVEL`, `POD_NAMESPACE`). */
export type FlagEnv = Readonly<Record<string, string | undefined>>;

/** A flag's value, or an error naming the flag and what it must be. */
export type FlagRead<T> = { ok: true; value: T } | { ok: false; error: string };

/** The flags a program takes, by name (without the leading `--`). */
export type FlagSpecs<Name extends string = string> = Readonly<Record<Name, FlagSpec>>;

/** What a program's configuration parser returns: its config, `--help`, `--version`, or an error naming the flag. */
export type ParseResult<Config> =
  | { ok: true; config: Config }
  | { ok: true; help: true }
  | { ok: true; version: true }
  | { ok: false; error: string };
