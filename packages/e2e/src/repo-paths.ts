import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the repository (this file lives in packages/e2e/src or packages/e2e/dist). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The single-file bundle of an app, as built by `pnpm --filter @swh/<app> build`. */
export function bundlePath(app: AppName): string {
  return join(REPO_ROOT, "apps", app, "dist", "main.mjs");
}

/**
 * The Node flags an app's image starts it with (`swh.nodeFlags` in its package.json, ADR 0011), so the
 * processes of tests and benchmarks run as in production.
 */
export function nodeFlags(app: AppName): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "apps", app, "package.json"), "utf8")) as {
    swh?: { nodeFlags?: string[] };
  };
  return pkg.swh?.nodeFlags ?? [];
}

/** Plain manifests rendered from the Helm chart (what `kubectl apply` users install). */
export const MANIFESTS_DIR = join(REPO_ROOT, "deploy", "manifests");

export type AppName = "controller" | "agent";
