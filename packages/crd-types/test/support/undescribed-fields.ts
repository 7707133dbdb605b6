import type { SchemaNode } from "../../src/internal/schema-node.js";

/**
 * Fields exempt from a description: the API server refuses a CRD that says anything about `metadata` beyond
 * name rules, and publishes ObjectMeta's own description for it.
 */
const EXEMPT = new Set(["metadata"]);

/**
 * Paths of the fields of `schema` without a (non-blank) description, e.g. `spec.ports[].name`; `[]` marks array
 * items and `{}` map values, which need none of their own since the field holding them is described.
 */
export function undescribedFields(schema: SchemaNode): string[] {
  const missing: string[] = [];
  const walk = (node: SchemaNode, path: string, isField: boolean): void => {
    if (isField && !EXEMPT.has(path) && (node.description ?? "").trim() === "") missing.push(path);
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      walk(child, path === "" ? name : `${path}.${name}`, true);
    }
    if (node.items) walk(node.items, `${path}[]`, false);
    if (node.additionalProperties) walk(node.additionalProperties, `${path}{}`, false);
  };
  walk(schema, "", false);
  return missing;
}
