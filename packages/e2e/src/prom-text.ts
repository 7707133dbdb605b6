/**
 * A minimal reader of the Prometheus text format, enough for benchmarks and tests to sum counters from the apps'
 * and kube-apiserver's /metrics (pure).
 */

/** One sample: metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format; comments and malformed lines are skipped. */
export function parsePromText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ""] = pair[2] ?? "";
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[4]) });
  }
  return samples;
}

/** Sums the samples named `name` whose labels match every entry of `where` (a value or a predicate). */
export function sumSamples(
  samples: readonly Sample[],
  name: string,
  where: Record<string, string | ((value: string) => boolean)> = {},
): number {
  let total = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    const matches = Object.entries(where).every(([k, v]) =>
      typeof v === "function" ? v(s.labels[k] ?? "") : s.labels[k] === v,
    );
    if (matches) total += s.value;
  }
  return total;
}
