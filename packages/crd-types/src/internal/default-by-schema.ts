/**
 * Structural defaulting as the API server performs it (apiextensions `structuraldefaulting.Default`): for each
 * object, a known property that is missing or null gets a deep copy of its schema default, a null without default
 * is dropped (the server prunes nulls of non-nullable fields first), then every property, array item and map value
 * is defaulted recursively — including the values just defaulted. Values of the wrong type are left as they are
 * for validation to report. Returns a new value; the input is never mutated.
 */
import type { SchemaNode } from "./schema-node.js";

/** Returns `value` with the defaults of `node` applied, as a new value. */
export function defaultBySchema(value: unknown, node: SchemaNode): unknown {
  if (Array.isArray(value)) {
    const items = node.items;
    return items === undefined ? structuredClone(value) : value.map((v) => defaultBySchema(v, items));
  }
  if (value === null || typeof value !== "object") return value;
  const input = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(input)) {
    const prop = node.properties?.[key];
    if (v === null && (prop !== undefined || node.additionalProperties !== undefined)) continue;
    out[key] = v;
  }
  for (const [key, prop] of Object.entries(node.properties ?? {})) {
    if (out[key] === undefined && prop.default !== undefined) out[key] = structuredClone(prop.default);
  }
  for (const [key, v] of Object.entries(out)) {
    const child = node.properties?.[key] ?? node.additionalProperties;
    out[key] = child === undefined ? structuredClone(v) : defaultBySchema(v, child);
  }
  return out;
}
