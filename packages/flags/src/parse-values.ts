/**
 * The values a flag holds besides durations (parse-duration.ts): a bounded integer and a comma-separated set of
 * names. Each returns the value or an error naming the flag and what it must be, like every parser here.
 */

/** The integer value of `flag` (its name with the dashes) in `min..max`, or an error naming the flag and the range. */
export function parseIntegerFlag(
  flag: string,
  value: string,
  range: { min: number; max: number },
): { ok: true; value: number } | { ok: false; error: string } {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < range.min || n > range.max)
    return { ok: false, error: `${flag} must be an integer ${range.min}..${range.max}, got "${value}"` };
  return { ok: true, value: n };
}

/**
 * The comma-separated names of `flag` as a set: sorted, without duplicates, blanks around commas and empty items
 * ignored; an item that does not match `item.pattern` is an error naming the flag, `item.what` and the item.
 */
export function parseNameSetFlag(
  flag: string,
  value: string,
  item: { pattern: RegExp; what: string },
): { ok: true; value: string[] } | { ok: false; error: string } {
  const names = value
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const bad = names.find((n) => !item.pattern.test(n));
  if (bad !== undefined)
    return { ok: false, error: `${flag} must list ${item.what} separated by commas, got "${bad}"` };
  return { ok: true, value: [...new Set(names)].sort() };
}
