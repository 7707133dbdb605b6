// Sums the vitest JSON reports of every workspace package (`<pkg>/.reports/{unit,integration}.json`) and prints one
// plain line `N passed, N failed`. A suite that should have reported but did not (it crashed, its globalSetup
// failed, or turbo never ran it) counts as one failure, and so does a report that says it did not succeed without
// naming a failed test, and so does each unhandled error of a run (`<kind>.errors.json`, written by
// vitest.unhandled-errors-reporter.ts, because vitest's JSON report still says `success: true` after one). Each
// failure is named (on stderr) just above that line, where the tail of a CI log shows it. Exits 1 when anything
// failed or no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const expected = { test: "unit.json", "test:integration": "integration.json" };
let passed = 0;
let failed = 0;
const problems = [];
for (const dir of workspaceDirs()) {
  const scripts = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts ?? {};
  for (const [script, file] of Object.entries(expected)) {
    if (!scripts[script]) continue;
    const path = join(dir, ".reports", file);
    if (!existsSync(path)) {
      failed += 1;
      problems.push(`${dir.slice(root.length)}: \`${script}\` left no report`);
      continue;
    }
    const report = JSON.parse(readFileSync(path, "utf8"));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    for (const name of failedTests(report)) problems.push(`${dir.slice(root.length)}: FAILED ${name}`);
    const errorsPath = join(dir, ".reports", file.replace(/\.json$/, ".errors.json"));
    const unhandled = existsSync(errorsPath)
      ? JSON.parse(readFileSync(errorsPath, "utf8")).unhandledErrors
      : [];
    failed += unhandled.length;
    for (const error of unhandled)
      problems.push(`${dir.slice(root.length)}: \`${script}\` unhandled ${error}`);
    if (report.success === false && (report.numFailedTests ?? 0) === 0) {
      failed += 1;
      problems.push(`${dir.slice(root.length)}: \`${script}\` did not succeed (a suite failed)`);
    }
  }
}
for (const p of problems) console.error(p);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

/** "file > describe > test: first line of the failure", for each failed test of a vitest JSON report. */
function failedTests(report) {
  return (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((test) => test.status === "failed")
      .map((test) => {
        const message = String(test.failureMessages?.[0] ?? "").split("\n")[0];
        return `${file.name.slice(root.length)} > ${test.fullName}: ${message}`;
      }),
  );
}

function workspaceDirs() {
  const dirs = [join(root, "deploy")];
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) dirs.push(join(root, group, name));
  }
  return dirs.filter((d) => existsSync(join(d, "package.json")));
}
