#!/usr/bin/env node
// The repository URL has one home: the root package.json's "repository" (ADR 0030). This script copies it into
// every workspace package.json as {type, url, directory}, or removes it from them while the root has none (the
// project has no public repository yet; a placeholder URL would mislead npm and provenance checks).
//
// Usage: node scripts/sync-repository.mjs               write every package.json from the root's
//        node scripts/sync-repository.mjs <git-url>     set the root's URL first, then write
//        node scripts/sync-repository.mjs --check       exit 1, naming each package.json that disagrees
//        --root <dir>                                   work on another checkout (tests)
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const check = args.includes("--check");
const rootFlag = args.indexOf("--root");
const root = rootFlag >= 0 ? args[rootFlag + 1] : fileURLToPath(new URL("..", import.meta.url));
const url = args.find((a, i) => !a.startsWith("--") && (rootFlag < 0 || i !== rootFlag + 1));

const read = (file) => JSON.parse(readFileSync(file, "utf8"));
const write = (file, pkg) => writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);

const rootFile = join(root, "package.json");
const rootPkg = read(rootFile);
if (url) {
  if (check) throw new Error("sync-repository: give a URL or --check, not both");
  rootPkg.repository = { type: "git", url };
  write(rootFile, rootPkg);
}
const repository = rootPkg.repository;
if (repository !== undefined && (repository.type !== "git" || typeof repository.url !== "string")) {
  throw new Error(`${rootFile}: "repository" must be {"type": "git", "url": "<git URL>"}`);
}

/** Workspace package directories: the globs of pnpm-workspace.yaml are "packages/*", "apps/*" and "deploy". */
function packageDirs() {
  const dirs = [];
  for (const parent of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, parent))) dirs.push(join(root, parent, name));
  }
  dirs.push(join(root, "deploy"));
  return dirs.filter((dir) => existsSync(join(dir, "package.json")));
}

/** `pkg` with `repository` set to `value` (or removed), keeping it right after "license" like the others. */
function withRepository(pkg, value) {
  const out = {};
  for (const [key, field] of Object.entries(pkg)) {
    if (key === "repository") continue;
    out[key] = field;
    if (key === "license" && value) out.repository = value;
  }
  if (value && !("repository" in out)) out.repository = value;
  return out;
}

const wrong = [];
for (const dir of packageDirs()) {
  const file = join(dir, "package.json");
  const pkg = read(file);
  const wanted = repository ? { ...repository, directory: relative(root, dir) } : undefined;
  if (JSON.stringify(pkg.repository) === JSON.stringify(wanted)) continue;
  if (check)
    wrong.push(
      `${relative(root, file)}: repository is ${JSON.stringify(pkg.repository)}, want ${JSON.stringify(wanted)}`,
    );
  else write(file, withRepository(pkg, wanted));
}
if (wrong.length > 0) {
  process.stderr.write(
    `${wrong.join("\n")}\nrun: node scripts/sync-repository.mjs (the URL lives in the root package.json)\n`,
  );
  process.exit(1);
}
