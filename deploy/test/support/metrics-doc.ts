/** The metric names deploy/METRICS.md documents, by section ("Both apps", "Agent", "Controller"). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY_DIR } from "./tools.ts";

/** Section title → metric names in the first column of that section's table. */
export function documentedMetrics(): Map<string, string[]> {
  const text = readFileSync(join(DEPLOY_DIR, "METRICS.md"), "utf8");
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      current = [];
      sections.set(heading[1] ?? "", current);
      continue;
    }
    const cell = line.startsWith("| `") ? line.split("|")[1] : undefined;
    for (const m of cell?.matchAll(/`([a-z_:][a-z0-9_:]*)`/g) ?? []) current?.push(m[1] ?? "");
  }
  return sections;
}

/** Every metric name METRICS.md documents. */
export function allDocumentedMetrics(): Set<string> {
  return new Set([...documentedMetrics().values()].flat());
}

/** Metric names a Prometheus text exposition declares (its "# TYPE" lines). */
export function exposedMetrics(exposition: string): Set<string> {
  return new Set([...exposition.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1] ?? ""));
}
