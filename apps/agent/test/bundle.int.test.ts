import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
  exports: unknown;
};

/** Every file path `exports` names, under any condition. */
function exportTargets(node: unknown): string[] {
  if (typeof node === "string") return [node];
  if (typeof node !== "object" || node === null) return [];
  return Object.values(node).flatMap(exportTargets);
}

/** Runs the bundled executable, as the image does, with an empty environment. */
function run(...args: string[]) {
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    [new URL("../dist/main.mjs", import.meta.url).pathname, ...args],
    { encoding: "utf8", env: {} },
  );
  return { status, stdout, stderr };
}

describe("bundle", () => {
  it("runs as a single file and prints its version", () => {
    const { status, stdout } = run("--version");
    expect(status).toBe(0);
    expect(stdout.trim()).toBe(`swh-agent ${pkg.version}`);
  });

  it("prints its usage for --help, every flag with its default, and exits 0", () => {
    const { status, stdout } = run("--help");
    expect(status).toBe(0);
    expect(stdout).toMatch(/^swh-agent — /);
    expect(stdout).toMatch(/--health-bind-address HOST:PORT .*\(default: :8081\)/);
    expect(stdout).toMatch(/--metrics-bind-address HOST:PORT .*\(default: :8443\)/);
    expect(stdout).toMatch(/--log-level LEVEL .*\(default: info/);
    expect(stdout).toContain("--version");
    const flagLines = stdout.split("\n").filter((line) => /^ {2}--/.test(line));
    for (const line of flagLines) expect(line).toMatch(/\(default: .+\)$|print the version and exit$/);
  });

  it("rejects an unknown flag naming it, with exit code 2", () => {
    const { status, stderr } = run("--frobnicate");
    expect(status).toBe(2);
    expect(stderr).toContain("unknown flag --frobnicate");
  });

  it("package.json points only at files that exist once built", () => {
    const targets = exportTargets(pkg.exports);
    expect(targets).toContain("./dist/main.mjs");
    expect(targets.filter((target) => !existsSync(new URL(`../${target}`, import.meta.url)))).toEqual([]);
  });
});
