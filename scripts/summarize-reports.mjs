// Sums vitest JSON reports (`packages/*/.reports/*.json`, `apps/*/.reports/*.json`) and prints one plain
// line `N passed, N failed`. Exits 1 when a test failed, a suite failed to load, or no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let brokenSuites = 0;
for (const group of ["packages", "apps"]) {
  for (const pkg of readdirSync(join(root, group))) {
    const dir = join(root, group, pkg, ".reports");
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const report = JSON.parse(readFileSync(join(dir, file), "utf8"));
      passed += report.numPassedTests ?? 0;
      failed += report.numFailedTests ?? 0;
      brokenSuites += (report.testResults ?? []).filter(
        (r) => r.status === "failed" && (r.assertionResults ?? []).length === 0,
      ).length;
    }
  }
}
failed += brokenSuites;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
