/**
 * Structural equality for API objects. Kubernetes omits empty values on the wire, so `undefined`, `null`,
 * empty arrays and empty objects are treated as absent: a desired `externalIPs: []` equals a stored Service
 * that has no `externalIPs` at all, and comparing them must not cause a write.
 */

/** True when `a` and `b` carry the same data once absent-equivalent values are dropped. */
export function sameJson(a: unknown, b: unknown): boolean {
  return prunedJson(a) === prunedJson(b);
}

/**
 * JSON with sorted object keys and absent-equivalent values dropped; `Date`s become ISO strings. Not
 * `@swh/aggregation`'s `canonicalJson`, which keeps `null`, `[]` and `{}`: a probe config with `code: []` is not the
 * one without `code` there, while an API object is.
 */
function prunedJson(value: unknown): string {
  return JSON.stringify(prune(value)) ?? "null";
}

function prune(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map((v) => prune(v) ?? null);
  }
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = prune((value as Record<string, unknown>)[key]);
      if (v !== undefined) out[key] = v;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}
