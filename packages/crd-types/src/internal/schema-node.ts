/**
 * The subset of OpenAPI v3 (as a Kubernetes structural schema) this package's schema is written in. Every CEL rule
 * carries, next to its expression, the same check written in TypeScript: the schema is the one place where a rule
 * is stated, `crdManifest()` emits the CEL, `validate()` runs the TypeScript, and the integration tests prove that
 * the two agree against a real API server.
 */

/** One `x-kubernetes-validations` entry plus its TypeScript twin `check`, which `crdManifest()` leaves out. */
export interface CelRule {
  rule: string;
  message: string;
  /** Relative JSON path of the field the error is reported on (defaults to the node carrying the rule). */
  fieldPath?: string;
  /**
   * Path `validate()` reports instead, when the API server cannot take a fieldPath (it refuses paths into
   * `metadata`, whose schema it owns); the rule's message then names the field itself.
   */
  reportedPath?: string;
  /** Returns true when `self` (the already-defaulted value of the node) satisfies `rule`. */
  check: (self: never) => boolean;
}

/** One node of a structural schema, in the subset described in the file header. */
export interface SchemaNode {
  type?: "object" | "array" | "string" | "integer" | "boolean";
  description?: string;
  properties?: Readonly<Record<string, SchemaNode>>;
  required?: readonly string[];
  additionalProperties?: SchemaNode;
  items?: SchemaNode;
  default?: unknown;
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  pattern?: string;
  format?: "int32" | "int64" | "date-time";
  "x-kubernetes-int-or-string"?: true;
  "x-kubernetes-preserve-unknown-fields"?: true;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: readonly string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-validations"?: readonly CelRule[];
}

/** Builds a rule whose TypeScript check receives `self` with the type the schema guarantees. */
export function celRule<T>(
  rule: string,
  message: string,
  check: (self: T) => boolean,
  fieldPath?: string,
): CelRule {
  return {
    rule,
    message,
    check: check as (self: never) => boolean,
    ...(fieldPath === undefined ? {} : { fieldPath }),
  };
}
