import { describe, expect, it } from "vitest";
import {
  formatUsage,
  parseDuration,
  parseDurationFlag,
  parseFlags,
  parseIntegerFlag,
  parseNameSetFlag,
} from "../src/index.js";

const NAMES = {
  kubeconfig: { value: "PATH", default: "in-cluster", help: "kubeconfig file" },
  "log-level": { value: "LEVEL", default: "info", help: "least severity logged" },
  "leader-elect": { default: "true", help: "elect a leader" },
} as const;
/** The same flags, with --leader-elect a boolean. */
const BOOLEAN = { ...NAMES, "leader-elect": { ...NAMES["leader-elect"], type: "boolean" } } as const;

describe("parseFlags", () => {
  it("reads --flag=value and --flag value, the last occurrence winning", () => {
    const result = parseFlags(
      ["--kubeconfig", "/tmp/kc", "--log-level=warn", "--log-level=debug", "--leader-elect=false"],
      NAMES,
    );
    expect(result.ok && "values" in result && Object.fromEntries(result.values)).toEqual({
      kubeconfig: "/tmp/kc",
      "log-level": "debug",
      "leader-elect": "false",
    });
  });

  it("keeps an empty value and everything after the first =", () => {
    const result = parseFlags(["--kubeconfig=", "--log-level=a=b"], NAMES);
    expect(result.ok && "values" in result && Object.fromEntries(result.values)).toEqual({
      kubeconfig: "",
      "log-level": "a=b",
    });
  });

  it("returns no values for flags that were not given", () => {
    const result = parseFlags([], NAMES);
    expect(result.ok && "values" in result && result.values.size).toBe(0);
  });

  it("answers --version wherever it stands", () => {
    expect(parseFlags(["--log-level=info", "--version", "--frobnicate"], NAMES)).toEqual({
      ok: true,
      version: true,
    });
  });

  it.each([
    [["--leader-elect"], "true"],
    [["--leader-elect", "--log-level=info"], "true"],
    [["--leader-elect", "false"], "false"],
  ])("reads a boolean flag %j as %s", (argv, value) => {
    const result = parseFlags(argv, BOOLEAN);
    expect(result.ok && "values" in result && result.values.get("leader-elect")).toBe(value);
  });

  it.each([
    [["--frobnicate"], "unknown flag --frobnicate"],
    [["--frobnicate=1"], "unknown flag --frobnicate"],
    [["stray"], 'unexpected argument "stray"'],
    [["-v"], 'unexpected argument "-v"'],
    [["--kubeconfig"], "--kubeconfig needs a value"],
    [["--leader-elect"], "--leader-elect needs a value"],
  ])("rejects %j with %j", (argv, error) => {
    expect(parseFlags(argv, NAMES)).toEqual({ ok: false, error });
  });
});

describe("parseFlags, beyond the apps' forms", () => {
  it("answers --help (or -h) wherever it stands, before --version and errors", () => {
    for (const argv of [["--help"], ["--frobnicate", "-h"], ["--version", "--help"], ["stray", "--help"]])
      expect(parseFlags(argv, NAMES)).toEqual({ ok: true, help: true });
  });

  it("keeps positionals when asked, and every value of a repeatable flag", () => {
    const flags = {
      header: { multiple: true, default: "none", help: "h" },
      https: { type: "boolean", default: "false", help: "tls" },
    } as const;
    const result = parseFlags(
      ["http", "--header", "A: 1", "--https", "10.0.0.1:443", "--header=B: 2"],
      flags,
      {
        positionals: true,
      },
    );
    expect(result).toEqual({
      ok: true,
      values: new Map([
        ["header", "B: 2"],
        ["https", "true"],
      ]),
      lists: new Map([
        ["header", ["A: 1", "B: 2"]],
        ["https", ["true"]],
      ]),
      positionals: ["http", "10.0.0.1:443"],
    });
  });

  it.each([
    [["--leader-elect=maybe"], '--leader-elect must be true or false, got "maybe"'],
    [["--"], 'unexpected argument "--"'],
    [["-xv"], 'unexpected argument "-xv"'],
  ])("rejects %j with %j", (argv, error) => {
    expect(parseFlags(argv, BOOLEAN)).toEqual({ ok: false, error });
  });
});

describe("formatUsage", () => {
  it("lists every flag with its placeholder, help and default, then --help and --version", () => {
    const usage = formatUsage("demo — does things", BOOLEAN);
    expect(usage.split("\n")).toEqual([
      "demo — does things",
      "",
      "Flags:",
      "  --kubeconfig PATH  kubeconfig file (default: in-cluster)",
      "  --log-level LEVEL  least severity logged (default: info)",
      "  --leader-elect     elect a leader (default: true)",
      "  -h, --help         print this help and exit",
      "  --version          print the version and exit",
      "",
    ]);
  });
});

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["90s", 90_000],
    ["5m", 300_000],
    ["1.5h", 5_400_000],
    ["5", undefined],
    ["-1s", undefined],
  ])("%s → %s", (text, ms) => expect(parseDuration(text)).toBe(ms));
});

describe("parseDurationFlag", () => {
  it.each([
    ["2s", 2_000],
    [" 750ms ", 750],
    ["1.5h", 5_400_000],
  ])("reads %j as %s ms", (text, ms) =>
    expect(parseDurationFlag("--timeout", text)).toEqual({ ok: true, ms }),
  );

  it.each([
    ["2", '--timeout: "2" has no unit: use 2s or 2000ms for seconds, 2ms for milliseconds'],
    ["1.5", '--timeout: "1.5" has no unit: use 1.5s or 1500ms for seconds, 1.5ms for milliseconds'],
    ["0", '--timeout: "0" has no unit: use 0s or 0ms for seconds, 0ms for milliseconds'],
    [
      "5x",
      '--timeout: "5x" is not a duration: use a number and a unit, ms, s, m or h (500ms, 90s, 5m, 1.5h)',
    ],
    [
      "-1s",
      '--timeout: "-1s" is not a duration: use a number and a unit, ms, s, m or h (500ms, 90s, 5m, 1.5h)',
    ],
  ])("refuses %j naming the flag: %s", (text, error) =>
    expect(parseDurationFlag("--timeout", text)).toEqual({ ok: false, error }),
  );
});

describe("one-letter aliases", () => {
  const VERBOSE = {
    verbose: { type: "boolean", short: "v", default: "false", help: "say more" },
    timeout: { value: "DURATION", default: "1s", help: "deadline" },
  } as const;

  it("reads -v as the flag that declares it, wherever it stands", () => {
    for (const argv of [
      ["-v", "tcp"],
      ["tcp", "-v"],
      ["tcp", "--verbose"],
    ]) {
      const result = parseFlags(argv, VERBOSE, { positionals: true });
      expect(result.ok && "values" in result && result.values.get("verbose")).toBe("true");
    }
  });

  it.each([
    [["-t", "1s"], 'unexpected argument "-t"'],
    [["-vx"], 'unexpected argument "-vx"'],
  ])("still refuses a letter no flag declares: %j", (argv, error) => {
    expect(parseFlags(argv, VERBOSE, { positionals: true })).toEqual({ ok: false, error });
  });

  it("shows the alias in the usage", () => {
    expect(formatUsage("demo", VERBOSE).split("\n")).toContain(
      "  -v, --verbose       say more (default: false)",
    );
  });
});

describe("parseIntegerFlag", () => {
  it("reads an integer within the range", () => {
    expect(parseIntegerFlag("--n", "1", { min: 1, max: 10 })).toEqual({ ok: true, value: 1 });
    expect(parseIntegerFlag("--n", "10", { min: 1, max: 10 })).toEqual({ ok: true, value: 10 });
  });

  it("refuses what is out of range or no integer, naming the flag, the range and the value", () => {
    for (const text of ["0", "11", "1.5", "-1", "", " 2", "1e1", "0x2"])
      expect(parseIntegerFlag("--n", text, { min: 1, max: 10 })).toEqual({
        ok: false,
        error: `--n must be an integer 1..10, got "${text}"`,
      });
  });
});

describe("parseNameSetFlag", () => {
  const label = { pattern: /^[a-z]+$/, what: "names" };

  it("reads comma-separated names as a sorted set, ignoring blanks and empty items", () => {
    expect(parseNameSetFlag("--ns", " b, a,,b ,", label)).toEqual({ ok: true, value: ["a", "b"] });
    expect(parseNameSetFlag("--ns", "", label)).toEqual({ ok: true, value: [] });
  });

  it("names the flag and the first item that is not a name", () => {
    expect(parseNameSetFlag("--ns", "a,B c,d!", label)).toEqual({
      ok: false,
      error: '--ns must list names separated by commas, got "B c"',
    });
  });
});
