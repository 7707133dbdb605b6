/**
 * Installs a workspace package the way a user gets it from the registry, without asking one: `pnpm pack` of it
 * and of each workspace package it depends on (as for publishing: `workspace:` ranges become versions, `files`
 * decides what ships), `npm pack` of every third-party package of its dependency tree as pnpm installed it here,
 * then `npm install --offline` of exactly those tarballs into an empty directory with an empty npm cache. A
 * dependency the tarballs do not provide fails the install instead of being fetched. Needs the packages' `dist/`
 * built (the integration run builds them first).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Node's lookup of `name` from `dir`: `node_modules/<name>` in `dir` or any directory above it. */
function findPackageDir(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** `dir` and every package it needs at run time, by name: workspace packages and third-party ones apart. */
function dependencyTree(dir: string): { workspace: string[]; thirdParty: string[] } {
  const seen = new Map<string, string>();
  const visit = (pkgDir: string) => {
    const manifest = readManifest(pkgDir);
    if (seen.has(manifest.name)) return;
    seen.set(manifest.name, pkgDir);
    const optional = new Set(Object.keys(manifest.optionalDependencies ?? {}));
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...optional]) {
      const found = findPackageDir(pkgDir, name);
      if (found !== undefined) visit(found);
      else if (!optional.has(name)) throw new Error(`${manifest.name} needs ${name}, which is not installed`);
    }
  };
  visit(realpathSync(dir));
  const dirs = [...seen.values()];
  const inStore = (d: string) => d.split("/").includes("node_modules");
  return { workspace: dirs.filter((d) => !inStore(d)), thirdParty: dirs.filter(inStore) };
}

/** The environment of the package managers we start, without the `npm_*` settings of a pnpm/turbo parent. */
function cleanEnv(cache: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_|^pnpm_/i.test(key)));
  return { ...env, npm_config_cache: cache, npm_config_offline: "true", npm_config_update_notifier: "false" };
}

/**
 * Packs `packageDir` with everything it depends on and installs the tarballs offline into a new directory;
 * returns that directory (`node_modules` inside), the environment to run `npx` there with, and how to remove it all.
 */
export async function installPacked(
  packageDir: string,
): Promise<{ dir: string; env: NodeJS.ProcessEnv; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "swh-packed-"));
  const tarballs = join(root, "tarballs");
  const dir = join(root, "app");
  const env = cleanEnv(join(root, "npm-cache"));
  await mkdir(tarballs);
  await mkdir(dir);
  const { workspace, thirdParty } = dependencyTree(packageDir);
  for (const pkgDir of workspace)
    await run("pnpm", ["pack", "--pack-destination", tarballs], { cwd: pkgDir, env });
  await run("npm", ["pack", "--ignore-scripts", "--pack-destination", tarballs, ...thirdParty], {
    cwd: root,
    env,
  });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "probe-user", private: true }));
  const files = (await readdir(tarballs)).map((file) => join(tarballs, file));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", ...files], {
    cwd: dir,
    env,
  });
  return { dir, env, remove: () => rm(root, { recursive: true, force: true }) };
}
