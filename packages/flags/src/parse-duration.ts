/**
 * A Go-style duration with one unit — `500ms`, `90s`, `5m`, `1.5h` — in milliseconds; undefined when `value` is
 * not one. The one duration syntax of every flag of the apps and of `swh-probe`.
 */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * unit);
}
