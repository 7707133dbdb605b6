/**
 * The CustomResourceDefinition of ServiceWithHealthchecks, derived from `serviceWithHealthchecksSchema`.
 * `deploy/chart/files/crd.yaml` is generated from it (`pnpm gen:crd`) and a test fails when
 * the two drift.
 */
import { CATEGORIES, GROUP, KIND, LIST_KIND, PLURAL, SHORT_NAME, SINGULAR, VERSION } from "./constants.js";
import type { SchemaNode } from "./internal/schema-node.js";
import { serviceWithHealthchecksSchema } from "./schema.js";

/** A JSON value as it appears in a manifest. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Printer columns: what `kubectl get swh` shows (SPEC §2). */
const PRINTER_COLUMNS = [
  { name: "Type", type: "string", jsonPath: ".spec.type" },
  { name: "Cluster-IP", type: "string", jsonPath: ".status.clusterIP" },
  { name: "External-IP", type: "string", jsonPath: ".status.externalIPSummary" },
  { name: "Ports", type: "string", jsonPath: ".status.portsSummary" },
  { name: "Ready", type: "string", jsonPath: ".status.readySummary" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
] as const;

/** Converts a schema node to plain JSON: every CEL rule loses its TypeScript `check`. */
function toOpenApi(node: SchemaNode): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (key === "properties") {
      const props: { [key: string]: JsonValue } = {};
      for (const [name, child] of Object.entries(value as Record<string, SchemaNode>)) {
        props[name] = toOpenApi(child);
      }
      out[key] = props;
    } else if (key === "items" || key === "additionalProperties") {
      out[key] = toOpenApi(value as SchemaNode);
    } else if (key === "x-kubernetes-validations") {
      out[key] = (value as NonNullable<SchemaNode["x-kubernetes-validations"]>).map(
        ({ rule, message, fieldPath }) => ({
          rule,
          message,
          ...(fieldPath === undefined ? {} : { fieldPath }),
        }),
      );
    } else {
      out[key] = structuredClone(value) as JsonValue;
    }
  }
  return out;
}

/** Returns the apiextensions.k8s.io/v1 CustomResourceDefinition of ServiceWithHealthchecks as a new object. */
export function crdManifest(): { [key: string]: JsonValue } {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: LIST_KIND,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: [SHORT_NAME],
        categories: [...CATEGORIES],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS.map((c) => ({ ...c })),
          schema: { openAPIV3Schema: toOpenApi(serviceWithHealthchecksSchema) },
        },
      ],
    },
  };
}
