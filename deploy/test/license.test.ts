/**
 * The licence (issue 32 item 7): the Apache License 2.0 that every package.json declares is the repository's
 * LICENSE, and every published package's tarball carries it (each package's LICENSE is a link to the root's, which
 * pnpm pack follows). The release test (images.int.test.ts) checks the released tarballs, CHANGELOG.md included.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT_DIR, run } from "./support/tools.ts";

const LICENSE = readFileSync(join(ROOT_DIR, "LICENSE"), "utf8");

/** Every workspace package.json: directory and contents. */
function workspacePackages(): { dir: string; pkg: { name: string; license?: string; private?: boolean } }[] {
  const dirs = [
    ".",
    "deploy",
    ...["apps", "packages"].flatMap((parent) =>
      readdirSync(join(ROOT_DIR, parent)).map((dir) => `${parent}/${dir}`),
    ),
  ];
  return dirs.map((dir) => ({
    dir,
    pkg: JSON.parse(readFileSync(join(ROOT_DIR, dir, "package.json"), "utf8")),
  }));
}

describe("the licence", () => {
  it("is the Apache License 2.0 in full, the one every package.json declares", () => {
    expect(LICENSE).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
    expect(LICENSE).toContain("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    expect(LICENSE).toContain("END OF TERMS AND CONDITIONS");
    const others = workspacePackages().filter(({ pkg }) => pkg.license !== "Apache-2.0");
    expect(others.map(({ dir, pkg }) => `${dir}: ${pkg.license}`)).toEqual([]);
  });

  const published = workspacePackages().filter(({ dir, pkg }) => dir.startsWith("packages/") && !pkg.private);

  // One `pnpm pack` per package: about a second each on an idle machine, much more beside a parallel build.
  it("ships in the tarball pnpm packs of each published package", () => {
    expect(published.length).toBeGreaterThan(5);
    const out = mkdtempSync(join(tmpdir(), "swh-pack-"));
    for (const { dir, pkg } of published) {
      const packed = run("pnpm", ["pack", "--pack-destination", out], { cwd: join(ROOT_DIR, dir) });
      expect(packed.status, `pnpm pack ${pkg.name}: ${packed.stderr}`).toBe(0);
      const tarball = packed.stdout.trim().split("\n").at(-1) ?? "";
      const shipped = run("tar", ["-xzOf", tarball, "package/LICENSE"]);
      expect(shipped.stdout, `${pkg.name}'s LICENSE`).toBe(LICENSE);
    }
  }, 180_000);
});
