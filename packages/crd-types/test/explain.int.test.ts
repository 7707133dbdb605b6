/**
 * What `kubectl explain swh` and `kubectl get all` read from a real API server: the OpenAPI v3 document the
 * server publishes for the installed CRD carries a description for every spec and status field, and discovery
 * lists the resource's categories.
 */
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { CATEGORIES } from "../src/constants.js";
import { GROUP, KIND, PLURAL, VERSION } from "../src/index.js";
import type { SchemaNode } from "../src/internal/schema-node.js";
import { serviceWithHealthchecksSchema } from "../src/schema.js";
import { callApi } from "./support/api.js";
import { installCrd } from "./support/install-crd.js";
import { undescribedFields } from "./support/undescribed-fields.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
  await installCrd(cluster);
});

/** The published schema of the resource, once the server's OpenAPI controller has picked the CRD up. */
async function publishedSchema(): Promise<SchemaNode> {
  return waitFor("the OpenAPI v3 document of the CRD", async () => {
    const doc = await callApi(cluster.info, "GET", `/openapi/v3/apis/${GROUP}/${VERSION}`);
    if (doc.status !== 200) return undefined;
    const schemas = (
      doc.body.components as { schemas?: Record<string, SchemaNode & Record<string, unknown>> }
    )?.schemas;
    return Object.values(schemas ?? {}).find((s) =>
      (s["x-kubernetes-group-version-kind"] as { kind: string }[] | undefined)?.some(
        (gvk) => gvk.kind === KIND,
      ),
    );
  });
}

describe("kubectl explain and categories on a real API server", () => {
  it("publishes a description for every field of spec and status", async () => {
    const schema = await publishedSchema();
    const fields = Object.keys(schema.properties ?? {});
    expect(fields).toEqual(expect.arrayContaining(["spec", "status"]));
    const statusFields = Object.keys(schema.properties?.status?.properties ?? {});
    expect(statusFields.sort()).toEqual(
      Object.keys(serviceWithHealthchecksSchema.properties?.status?.properties ?? {}).sort(),
    );
    expect(undescribedFields(schema)).toEqual([]);
    expect(
      schema.properties?.status?.properties?.conditions?.items?.properties?.reason?.description,
    ).toContain("docs/troubleshooting.md");
  });

  it("lists the resource in its categories (kubectl get all)", async () => {
    const discovery = await callApi(cluster.info, "GET", `/apis/${GROUP}/${VERSION}`);
    const resource = (discovery.body.resources as { name: string; categories?: string[] }[]).find(
      (r) => r.name === PLURAL,
    );
    expect(resource?.categories).toEqual([...CATEGORIES]);
  });
});
