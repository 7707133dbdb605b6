/**
 * OpenAPI v3 validation of a (defaulted) value against a schema node, plus the TypeScript twins of the node's
 * CEL rules, reporting what the API server reports: the field path and a message in the server's words.
 * A node's CEL rules run only when nothing inside it is already invalid (the server's messages for the
 * structural error are the useful ones then, and the twins may assume well-typed input).
 */
import type { SchemaNode } from "./schema-node.js";

/** One reason an object is invalid: the field (`spec.healthcheck.probes[0].http.path`) and what is wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function hasType(value: unknown, node: SchemaNode): boolean {
  const actual = typeOf(value);
  if (node["x-kubernetes-int-or-string"]) return actual === "integer" || actual === "string";
  if (node.type === undefined) return true;
  return actual === node.type;
}

function checkValue(value: unknown, node: SchemaNode, path: string, issues: ValidationIssue[]): void {
  const fail = (message: string) => issues.push({ path, message });
  if (node.enum !== undefined && !node.enum.includes(value as string | number)) {
    fail(
      `Unsupported value: ${JSON.stringify(value)}: supported values: ${node.enum.map((e) => JSON.stringify(e)).join(", ")}`,
    );
  }
  if (typeof value === "number") {
    if (node.minimum !== undefined && value < node.minimum) {
      fail(`should be greater than or equal to ${node.minimum}`);
    }
    if (node.maximum !== undefined && value > node.maximum) {
      fail(`should be less than or equal to ${node.maximum}`);
    }
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (node.maxLength !== undefined && length > node.maxLength) {
      // The server counts characters but words it in bytes; the message is kept identical.
      fail(`Too long: may not be more than ${node.maxLength} bytes`);
    }
    if (node.minLength !== undefined && length < node.minLength) {
      fail(`should be at least ${node.minLength} chars long`);
    }
    if (node.pattern !== undefined && !new RegExp(node.pattern).test(value)) {
      fail(`should match '${node.pattern}'`);
    }
  }
  if (Array.isArray(value) && node.maxItems !== undefined && value.length > node.maxItems) {
    fail(`must have at most ${node.maxItems} items`);
  }
}

function checkListMapKeys(list: unknown[], node: SchemaNode, path: string, issues: ValidationIssue[]): void {
  const keys = node["x-kubernetes-list-map-keys"];
  if (node["x-kubernetes-list-type"] !== "map" || keys === undefined) return;
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (item === null || typeof item !== "object") return;
    const entry = item as Record<string, unknown>;
    const key = JSON.stringify(Object.fromEntries(keys.map((k) => [k, entry[k]])));
    if (seen.has(key)) issues.push({ path: `${path}[${i}]`, message: `Duplicate value: ${key}` });
    seen.add(key);
  });
}

/** Appends to `issues` every way `value` (at `path`) violates `node`, including its CEL rules' twins. */
export function validateBySchema(
  value: unknown,
  node: SchemaNode,
  path: string,
  issues: ValidationIssue[],
): void {
  if (!hasType(value, node)) {
    const expected = node["x-kubernetes-int-or-string"] ? "integer or string" : node.type;
    issues.push({ path, message: `must be of type ${expected}: ${JSON.stringify(typeOf(value))}` });
    return;
  }
  const before = issues.length;
  checkValue(value, node, path, issues);
  if (Array.isArray(value)) {
    const items = node.items;
    if (items !== undefined) {
      for (const [i, v] of value.entries()) validateBySchema(v, items, `${path}[${i}]`, issues);
    }
    checkListMapKeys(value, node, path, issues);
  } else if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    for (const key of node.required ?? []) {
      if (obj[key] === undefined) issues.push({ path: join(path, key), message: "Required value" });
    }
    if (node.maxProperties !== undefined && Object.keys(obj).length > node.maxProperties) {
      issues.push({ path, message: `must have at most ${node.maxProperties} properties` });
    }
    for (const [key, v] of Object.entries(obj)) {
      const child = node.properties?.[key] ?? node.additionalProperties;
      if (child !== undefined && v !== undefined) validateBySchema(v, child, join(path, key), issues);
    }
  }
  if (issues.length > before) return;
  for (const rule of node["x-kubernetes-validations"] ?? []) {
    if (!rule.check(value as never)) {
      const at =
        rule.reportedPath ?? (rule.fieldPath === undefined ? path : join(path, rule.fieldPath.slice(1)));
      issues.push({ path: at, message: rule.message });
    }
  }
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
