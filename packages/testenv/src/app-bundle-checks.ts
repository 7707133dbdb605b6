/**
 * The checks every app's bundle must pass, written once for both apps (issue 18): it runs as one file with an
 * empty environment, answers `--version` and `--help` (every flag with its default), rejects an unknown flag with
 * exit code 2, and its package.json points only at files that exist. Each check is a plain function that throws
 * on failure (node:assert), so this package does not depend on a test runner; an app's test file states only
 * what differs (its name and flag defaults) and registers the checks with its runner.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

/** What differs between the apps' bundles. */
export interface AppBundle {
  /** The app's directory (holding package.json and dist/main.mjs), e.g. `new URL("..", import.meta.url)`. */
  appDir: URL;
  /** The executable's name, as `--version` and `--help` print it, e.g. "swh-agent". */
  binary: string;
  /** Flags whose help line must name their default: `[flag with its value name, default]`. */
  flagDefaults: readonly (readonly [string, string])[];
}

/** One named check of a bundle; `run` throws an AssertionError when the bundle fails it. */
export interface AppBundleCheck {
  name: string;
  run(): void;
}

/** The checks of `bundle` (the bundle must be built first: `node ../../scripts/bundle-app.mjs`). */
export function appBundleChecks(bundle: AppBundle): AppBundleCheck[] {
  const pkg = JSON.parse(readFileSync(new URL("package.json", dirUrl(bundle.appDir)), "utf8")) as {
    version: string;
    exports: unknown;
  };
  // The image runs `node /app/main.mjs` with nothing else: no node_modules, no environment.
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [new URL("dist/main.mjs", dirUrl(bundle.appDir)).pathname, ...args], {
      encoding: "utf8",
      env: {},
    });
  return [
    {
      name: "runs as a single file and prints its version",
      run() {
        const { status, stdout } = run("--version");
        assert.equal(status, 0);
        assert.equal(stdout.trim(), `${bundle.binary} ${pkg.version}`);
      },
    },
    {
      name: "prints its usage for --help, every flag with its default, and exits 0",
      run() {
        const { status, stdout } = run("--help");
        assert.equal(status, 0);
        assert.ok(stdout.startsWith(`${bundle.binary} — `), `usage starts with "${bundle.binary} — "`);
        for (const [flag, value] of bundle.flagDefaults) {
          const line = stdout.split("\n").find((l) => l.trimStart().startsWith(`${flag} `));
          assert.ok(line?.includes(`(default: ${value}`), `${flag} names its default ${value}: ${line}`);
        }
        assert.ok(stdout.includes("--version"), "--help lists --version");
        const flagLines = stdout.split("\n").filter((line) => /^ {2}--/.test(line));
        for (const line of flagLines) assert.match(line, /\(default: .+\)$|print the version and exit$/);
      },
    },
    {
      name: "rejects an unknown flag naming it, with exit code 2",
      run() {
        const { status, stderr } = run("--frobnicate");
        assert.equal(status, 2);
        assert.ok(stderr.includes("unknown flag --frobnicate"), `stderr names the flag: ${stderr}`);
      },
    },
    {
      name: "package.json points only at files that exist once built",
      run() {
        const targets = exportTargets(pkg.exports);
        assert.ok(targets.includes("./dist/main.mjs"), "exports name ./dist/main.mjs");
        const missing = targets.filter((target) => !existsSync(new URL(target, dirUrl(bundle.appDir))));
        assert.deepEqual(missing, []);
      },
    },
  ];
}

/** Every file path `exports` names, under any condition. */
function exportTargets(node: unknown): string[] {
  if (typeof node === "string") return [node];
  if (typeof node !== "object" || node === null) return [];
  return Object.values(node).flatMap(exportTargets);
}

/** `url` with a trailing slash, so relative URLs resolve inside it. */
function dirUrl(url: URL): URL {
  return url.href.endsWith("/") ? url : new URL(`${url.href}/`);
}
