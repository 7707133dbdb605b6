/** Shared output of the system benchmarks: one aligned block of figures per benchmark. */

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Prints a titled block of `name: value` lines. */
export function printFigures(title: string, figures: readonly (readonly [string, string])[]): void {
  const width = Math.max(...figures.map(([name]) => name.length));
  process.stdout.write(`\n== ${title}\n`);
  for (const [name, value] of figures) process.stdout.write(`${name.padEnd(width)}  ${value}\n`);
}
