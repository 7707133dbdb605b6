/**
 * `kubectl explain` shows a field's `description`: every field of the schema must have one, so that a user can
 * read what any spec or status field means from the cluster itself. Array items and map values are described
 * by their field; their own properties are fields again.
 */
import { describe, expect, it } from "vitest";
import { crdManifest } from "../src/index.js";
import type { SchemaNode } from "../src/internal/schema-node.js";
import { serviceWithHealthchecksSchema } from "../src/schema.js";
import { undescribedFields } from "./support/undescribed-fields.js";

describe("schema descriptions", () => {
  it("describes every field of spec and status (kubectl explain)", () => {
    expect(undescribedFields(serviceWithHealthchecksSchema)).toEqual([]);
  });

  it("carries them into the CRD manifest", () => {
    const crd = crdManifest() as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: SchemaNode } }[] };
    };
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
    expect(schema).toBeDefined();
    expect(undescribedFields(schema ?? {})).toEqual([]);
  });

  it("finds a field without description at any depth, inside arrays and maps", () => {
    const schema: SchemaNode = {
      type: "object",
      description: "root",
      properties: {
        described: { type: "string", description: "yes" },
        bare: { type: "string" },
        list: {
          type: "array",
          description: "a list",
          items: { type: "object", properties: { inner: { type: "integer" } } },
        },
        map: {
          type: "object",
          description: "a map",
          additionalProperties: {
            type: "object",
            properties: { value: { type: "string", description: "" } },
          },
        },
      },
    };
    expect(undescribedFields(schema)).toEqual(["bare", "list[].inner", "map{}.value"]);
  });
});
