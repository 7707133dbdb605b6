import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the repository (this file lives in packages/e2e/src or packages/e2e/dist). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The single-file bundle of an app, as built by `pnpm --filter @swh/<app> build`. */
export function bundlePath(app: AppName): string {
  return join(REPO_ROOT, "apps", app, "dist", "main.mjs");
}

/** Plain manifests rendered from the Helm chart (what `kubectl apply` users install). */
export const MANIFESTS_DIR = join(REPO_ROOT, "deploy", "manifests");

export type AppName = "controller" | "agent";
