/** SPEC §2.2 truthiness of a PostgreSQL probe query's first column of the first row. */

const TRUE_STRINGS = new Set(["t", "true", "y", "yes", "on", "1"]);

/** True for boolean true, the number 1 (or bigint 1n), or one of t/true/y/yes/on/1 (case-insensitive). */
export function isTruthyQueryValue(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === "number") return value === 1;
  if (typeof value === "bigint") return value === 1n;
  if (typeof value === "string") return TRUE_STRINGS.has(value.trim().toLowerCase());
  return false;
}
