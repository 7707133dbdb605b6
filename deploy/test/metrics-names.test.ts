import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { allDocumentedMetrics } from "./support/metrics-doc.ts";
import { DEPLOY_DIR } from "./support/tools.ts";

/** Metric names a PromQL expression refers to (identifiers followed by a selector, range or binary op). */
export function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const keywords = new Set([
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
  ]);
  const names = new Set<string>();
  for (const match of withoutStrings.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)) {
    const name = match[1] ?? "";
    const before = withoutStrings.slice(0, match.index);
    // Skip label names inside {...} or (...) label lists, keywords and Grafana variables.
    if (keywords.has(name) || /\$\w*$/.test(before)) continue;
    if (
      /[{,]\s*$/.test(before) ||
      /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*$/.test(before)
    )
      continue;
    if (/^\d/.test(name) || /^(le|inf|nan)$/i.test(name)) continue;
    if (!name.includes("_")) continue; // every metric we use has one; label values like "ready" are quoted anyway
    names.add(name.replace(/_(bucket|sum|count)$/, ""));
  }
  return [...names].sort();
}

function dashboardExprs(): string[] {
  const dashboard = JSON.parse(
    readFileSync(join(DEPLOY_DIR, "dashboards/service-with-healthchecks.json"), "utf8"),
  );
  const exprs: string[] = [];
  for (const panel of dashboard.panels) for (const target of panel.targets ?? []) exprs.push(target.expr);
  for (const variable of dashboard.templating.list) {
    const query = variable.query?.query;
    if (typeof query === "string") exprs.push(query.replace(/^label_values\(([^,]+),.*$/, "$1"));
  }
  return exprs;
}

function alertExprs(): string[] {
  const rules = parse(readFileSync(join(DEPLOY_DIR, "prometheus/alerts.yaml"), "utf8"));
  return rules.groups.flatMap((g: { rules: { expr: string }[] }) => g.rules.map((r) => r.expr));
}

describe("metric names", () => {
  it("finds metric names in PromQL and not label names or functions", () => {
    expect(
      metricNames(
        'sum by (namespace, pod) (rate(swh_slice_writes_total{result="error"}[5m])) > 0 and on (pod) up',
      ),
    ).toEqual(["swh_slice_writes_total"]);
    expect(
      metricNames(
        "histogram_quantile(0.99, sum by (mode, le) (rate(swh_probe_duration_seconds_bucket[5m])))",
      ),
    ).toEqual(["swh_probe_duration_seconds"]);
  });

  it("every metric the dashboard uses is documented in METRICS.md", () => {
    const documented = allDocumentedMetrics();
    const used = [...new Set(dashboardExprs().flatMap(metricNames))].sort();
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((name) => !documented.has(name))).toEqual([]);
  });

  it("every metric the alert rules use is documented in METRICS.md", () => {
    const documented = allDocumentedMetrics();
    const used = [...new Set(alertExprs().flatMap(metricNames))].sort();
    expect(used).toEqual([
      "swh_agent_heartbeat_stale",
      "swh_endpoint_transitions_total",
      "swh_leader",
      "swh_service_endpoints",
      "swh_slice_writes_total",
    ]);
    expect(used.filter((name) => !documented.has(name))).toEqual([]);
  });
});
