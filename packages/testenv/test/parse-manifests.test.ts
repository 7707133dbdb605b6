import { describe, expect, it } from "vitest";
import { parseManifests } from "../src/index.ts";

describe("parseManifests", () => {
  it("splits multi-document YAML, skipping empty documents", () => {
    const objects = parseManifests(
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\nkind: Secret\n",
    );
    expect(objects.map((o) => o.kind)).toEqual(["ConfigMap", "Secret"]);
  });

  it("flattens a List", () => {
    const objects = parseManifests([
      { apiVersion: "v1", kind: "List", items: [{ kind: "ConfigMap" }, { kind: "Service" }] },
    ]);
    expect(objects.map((o) => o.kind)).toEqual(["ConfigMap", "Service"]);
  });

  it("rejects invalid YAML naming the document", () => {
    expect(() => parseManifests("kind: ConfigMap\n---\nkind: [unclosed\n")).toThrow(/YAML document 1/);
  });

  it("rejects a document that is not an object", () => {
    expect(() => parseManifests("- a\n- b\n")).toThrow(/document 0 is not an object/);
  });
});
