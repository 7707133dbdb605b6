/**
 * The repository URL lives in one place, the root package.json (ADR 0030, issue 21 item 7):
 * scripts/sync-repository.mjs copies it into every workspace package.json, and these tests keep them agreeing.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT_DIR, run } from "./support/tools.ts";

const SCRIPT = join(ROOT_DIR, "scripts/sync-repository.mjs");

function sync(...args: string[]) {
  return run(process.execPath, [SCRIPT, ...args]);
}

/** A checkout with the workspace layout: root, packages/lib, apps/app, deploy. */
function fakeCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), "swh-repo-"));
  const pkg = (dir: string, name: string) => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(
      join(root, dir, "package.json"),
      `${JSON.stringify({ name, license: "Apache-2.0" }, null, 2)}\n`,
    );
  };
  pkg(".", "root");
  pkg("packages/lib", "@swh/lib");
  pkg("apps/app", "@swh/app");
  pkg("deploy", "@swh/deploy");
  return root;
}

const readPkg = (root: string, dir: string) =>
  JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));

describe("the repository URL", () => {
  it("agrees in every package.json of this checkout with the root's", () => {
    const result = sync("--check");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("is set once, in the root package.json, and copied to every package with its directory", () => {
    const root = fakeCheckout();
    expect(sync("--root", root, "https://git.example.test/swh.git").status).toBe(0);
    expect(readPkg(root, ".").repository).toEqual({ type: "git", url: "https://git.example.test/swh.git" });
    expect(readPkg(root, "packages/lib").repository).toEqual({
      type: "git",
      url: "https://git.example.test/swh.git",
      directory: "packages/lib",
    });
    expect(readPkg(root, "deploy").repository.directory).toBe("deploy");
    expect(sync("--root", root, "--check").status).toBe(0);
  });

  it("fails the check naming the package.json that disagrees", () => {
    const root = fakeCheckout();
    sync("--root", root, "https://git.example.test/swh.git");
    const file = join(root, "apps/app/package.json");
    writeFileSync(
      file,
      JSON.stringify({ ...readPkg(root, "apps/app"), repository: "https://example.invalid/x.git" }),
    );
    const result = sync("--root", root, "--check");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("apps/app/package.json: repository is");
  });

  it("is no placeholder anywhere in the tracked files", () => {
    const tracked = run(
      "git",
      ["grep", "-l", "://example\\.invalid", "--", ".", ":!deploy/test/repository.test.ts"],
      {
        cwd: ROOT_DIR,
      },
    );
    expect(tracked.stdout).toBe("");
  });
});
