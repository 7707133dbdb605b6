import { defineConfig } from "vitest/config";
import { UnhandledErrorsReporter } from "./vitest.unhandled-errors-reporter.ts";

/**
 * Returns the vitest configuration every package uses. `kind` selects unit tests (`*.test.ts`)
 * or integration tests (`*.int.test.ts`, which need the test control plane and run inside the
 * private network namespace that `scripts/run` creates). Each run writes a JSON report to
 * `.reports/<kind>.json`, and its unhandled errors to `.reports/<kind>.errors.json`, so `.ci/run` can sum results
 * over all packages.
 */
export function defineSwhConfig(kind: "unit" | "integration", extra: { globalSetup?: string[] } = {}) {
  const integration = kind === "integration";
  return defineConfig({
    resolve: { conditions: ["@swh/source"] },
    ssr: { resolve: { conditions: ["@swh/source"] } },
    test: {
      include: integration ? ["test/**/*.int.test.ts"] : ["test/**/*.test.ts"],
      exclude: integration ? [] : ["test/**/*.int.test.ts", "node_modules/**"],
      reporters: [
        "default",
        ["json", { outputFile: `.reports/${kind}.json` }],
        new UnhandledErrorsReporter(`.reports/${kind}.errors.json`),
      ],
      testTimeout: integration ? 120_000 : 20_000,
      hookTimeout: integration ? 180_000 : 20_000,
      fileParallelism: !integration,
      globalSetup: extra.globalSetup ?? [],
      passWithNoTests: false,
    },
  });
}
