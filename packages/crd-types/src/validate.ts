/**
 * `validate` — the API server's verdict on a ServiceWithHealthchecks, computed without an API server.
 */

import { API_VERSION, KIND } from "./constants.js";
import { defaultBySchema } from "./internal/default-by-schema.js";
import { type ValidationIssue, validateBySchema } from "./internal/validate-by-schema.js";
import { serviceWithHealthchecksSchema } from "./schema.js";

export type { ValidationIssue } from "./internal/validate-by-schema.js";

/**
 * Returns every reason the API server would reject `obj` as a ServiceWithHealthchecks (empty when valid), each
 * with the field path and message the server reports (`{ path: "spec.healthcheck.probes[0].http.path", message:
 * "http.path must start with '/'" }`). Like the server, it validates the object after defaulting; unknown fields
 * are not errors (the server prunes them). The name rule is skipped when `metadata.name` is not set yet
 * (`generateName`).
 */
export function validate(obj: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return [{ path: "", message: "must be an object" }];
  }
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion !== API_VERSION) {
    issues.push({ path: "apiVersion", message: `must be ${JSON.stringify(API_VERSION)}` });
  }
  if (kind !== KIND) issues.push({ path: "kind", message: `must be ${JSON.stringify(KIND)}` });
  const defaulted = defaultBySchema(obj, serviceWithHealthchecksSchema) as Record<string, unknown>;
  const meta = defaulted.metadata as { name?: unknown } | undefined;
  const named = typeof meta?.name === "string";
  const schema = named
    ? serviceWithHealthchecksSchema
    : { ...serviceWithHealthchecksSchema, "x-kubernetes-validations": [] };
  validateBySchema(defaulted, schema, "", issues);
  return issues;
}

/**
 * Names what is wrong with a stored `spec` for status, Events and logs: the first field the schema rejects today
 * as `path: message` (e.g. `spec.ports: must be of type array: "string"`), plus how many more issues there are;
 * undefined when the spec is valid. The API server never re-validates stored objects after a schema change, so a
 * reader that cannot process one uses this to say which field is at fault. Messages carry no field values other
 * than enum values, so the line never leaks a secret (header values, queries).
 */
export function describeSpecIssues(spec: unknown): string | undefined {
  const issues = validate({ apiVersion: API_VERSION, kind: KIND, metadata: {}, spec });
  const [first] = issues;
  if (first === undefined) return undefined;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return `${first.path}: ${first.message}${more}`;
}

/**
 * Why a stored `spec` could not be processed, for status, Events and logs: what `describeSpecIssues` says when
 * the schema rejects the spec, else what processing threw (`error`, bounded to 200 characters: errors from
 * reading an object's shape name code, not values).
 */
export function describeUnprocessableSpec(spec: unknown, error: unknown): string {
  const issues = describeSpecIssues(spec);
  if (issues !== undefined) return issues;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `the spec could not be processed: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
}
