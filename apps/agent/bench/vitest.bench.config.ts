import { defineConfig } from "vitest/config";

// Benchmarks are plain vitest files that print figures; they start their own control plane.
export default defineConfig({
  resolve: { conditions: ["@swh/source"] },
  ssr: { resolve: { conditions: ["@swh/source"] } },
  test: { include: ["bench/**/*.bench.ts"], testTimeout: 900_000, hookTimeout: 300_000 },
});
