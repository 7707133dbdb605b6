/**
 * JSON merge patch (RFC 7386) from a stored object to a desired one. A merge patch only adds and replaces, so
 * keys that disappeared must be sent as `null`; arrays are replaced whole.
 */

/** The merge patch turning `stored` into `next`; `undefined` values in `next` count as absent. */
export function mergePatch(stored: unknown, next: unknown): unknown {
  if (!isPlainObject(next) || !isPlainObject(stored)) return next === undefined ? null : next;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(stored)) {
    if (next[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    patch[key] = key in stored ? mergePatch(stored[key], value) : value;
  }
  return patch;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
