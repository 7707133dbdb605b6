/**
 * Time helpers shared by the pure cores. Kubernetes timestamps reach us either as `Date` (client-node's typed
 * models) or as RFC 3339 strings (raw JSON from a watch), so every reader accepts both.
 */

/** A Kubernetes timestamp as any client hands it over. */
export type Timestamp = Date | string;

/** Milliseconds since the epoch of `t`, or `undefined` when `t` is missing or unparsable. */
export function toMillis(t: Timestamp | undefined | null): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** RFC 3339 string with second precision, the form `metav1.Time` uses (stable across writers). */
export function formatTime(t: Timestamp | number): string {
  const ms = typeof t === "number" ? t : (toMillis(t) ?? 0);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
