import { describe, expect, it } from "vitest";
import {
  booleanFlag,
  durationFlag,
  type FlagEnv,
  formatUsage,
  integerFlag,
  nameSetFlag,
  readFlags,
} from "../src/index.js";

/** A program's flags, declared once: each with its default as a value, and one falling back to the environment. */
const FLAGS = {
  workers: integerFlag({ value: "N", fallback: 4, min: 1, max: 64, help: "reconciles at once" }),
  grace: durationFlag({ value: "DUR", fallback: "5m", help: "how long to wait" }),
  namespaces: nameSetFlag({
    value: "NS,...",
    default: "none",
    help: "namespaces to read",
    pattern: /^[a-z]+$/,
    what: "namespace names",
  }),
  "leader-elect": booleanFlag({ fallback: true, help: "elect a leader" }),
  zone: {
    value: "ZONE",
    default: "$ZONE",
    help: "this zone",
    read: (given: string | undefined, flag: string, env: FlagEnv) =>
      (given ?? env.ZONE)
        ? { ok: true as const, value: (given ?? env.ZONE) as string }
        : { ok: false as const, error: `${flag} is required (or set ZONE)` },
  },
  label: { value: "TEXT", default: "none", help: "a label" },
} as const;

describe("readFlags", () => {
  it("applies every default where the flag declares it, as a value of its kind", () => {
    expect(readFlags([], FLAGS, { ZONE: "a" })).toEqual({
      ok: true,
      values: {
        workers: 4,
        grace: 300_000,
        namespaces: [],
        "leader-elect": true,
        zone: "a",
        label: undefined,
      },
    });
  });

  it("reads what is given over the default and the environment", () => {
    const argv = ["--workers=8", "--grace", "90s", "--namespaces=b,a", "--leader-elect=false", "--zone=z"];
    expect(readFlags([...argv, "--label", "x"], FLAGS, { ZONE: "a" })).toEqual({
      ok: true,
      values: {
        workers: 8,
        grace: 90_000,
        namespaces: ["a", "b"],
        "leader-elect": false,
        zone: "z",
        label: "x",
      },
    });
  });

  it.each([
    [["--workers=0"], '--workers must be an integer 1..64, got "0"'],
    [["--grace=90"], '--grace: "90" has no unit'],
    [["--namespaces=a,B"], '--namespaces must list namespace names separated by commas, got "B"'],
    [[], "--zone is required (or set ZONE)"],
    [["--leader-elect=maybe"], '--leader-elect must be true or false, got "maybe"'],
    [["--workrs=2"], "unknown flag --workrs"],
  ])("returns the first error, naming its flag: %j", (argv, error) => {
    const read = readFlags(argv, FLAGS);
    expect(read.ok).toBe(false);
    expect(read.ok ? "" : read.error).toContain(error);
  });

  it("answers --help and --version before reading any value", () => {
    expect(readFlags(["--workers=0", "--help"], FLAGS)).toEqual({ ok: true, help: true });
    expect(readFlags(["--version"], FLAGS)).toEqual({ ok: true, version: true });
  });

  it("prints the defaults the readers apply", () => {
    const usage = formatUsage("demo", FLAGS);
    expect(usage).toContain("reconciles at once, 1..64 (default: 4)");
    expect(usage).toContain("how long to wait (default: 5m)");
    expect(usage).toMatch(/--leader-elect\s+elect a leader \(default: true\)/);
  });
});
