/**
 * Go-style durations with one unit — `500ms`, `90s`, `5m`, `1.5h` — the one duration syntax of every flag of the
 * apps and of `swh-probe` (ADR 0042: a bare number is never a duration, since nothing says whether `2` meant
 * seconds or milliseconds).
 */

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** `value` in milliseconds when it is a duration with a unit; undefined otherwise (a bare number included). */
export function parseDuration(value: string): number | undefined {
  const match = DURATION.exec(value.trim());
  if (match === null) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/**
 * The value of the duration flag `flag` (its name with the dashes, e.g. `--timeout`) in milliseconds, or an error
 * naming the flag: a bare number is refused with what it may have meant, as seconds or as milliseconds
 * (`--timeout: "2" has no unit: use 2s or 2000ms for seconds, 2ms for milliseconds`). Range checks are the
 * program's.
 */
export function parseDurationFlag(
  flag: string,
  value: string,
): { ok: true; ms: number } | { ok: false; error: string } {
  const ms = parseDuration(value);
  if (ms !== undefined) return { ok: true, ms };
  const text = value.trim();
  if (BARE_NUMBER.test(text)) {
    const asMs = Math.round(Number(text) * 1_000);
    return {
      ok: false,
      error: `${flag}: "${text}" has no unit: use ${text}s or ${asMs}ms for seconds, ${text}ms for milliseconds`,
    };
  }
  return {
    ok: false,
    error: `${flag}: "${value}" is not a duration: use a number and a unit, ms, s, m or h (500ms, 90s, 5m, 1.5h)`,
  };
}
