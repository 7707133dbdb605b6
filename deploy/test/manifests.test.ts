import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_DIR, parseYamlDocuments, run } from "./support/tools.ts";

const MANIFESTS_DIR = join(DEPLOY_DIR, "manifests");

describe("deploy/manifests", () => {
  it("is exactly what the chart renders (no drift)", () => {
    const result = run("bash", [join(DEPLOY_DIR, "scripts/render-manifests.sh"), "--check"]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("has one file per kind group, each with only valid objects in swh-system", () => {
    const files = readdirSync(MANIFESTS_DIR).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "agent.yaml",
        "controller.yaml",
        "namespace.yaml",
        "rbac-agent.yaml",
        "rbac-agent-credentials.yaml",
        "rbac-controller.yaml",
        "rbac-metrics.yaml",
      ]),
    );
    for (const file of files) {
      const objects = parseYamlDocuments(readFileSync(join(MANIFESTS_DIR, file), "utf8"));
      expect(objects.length, file).toBeGreaterThan(0);
      for (const obj of objects) {
        expect(obj.apiVersion, `${file}: ${obj.kind}`).toBeTruthy();
        if (obj.metadata.namespace !== undefined) expect(obj.metadata.namespace).toBe("swh-system");
      }
    }
  });

  it("puts each app's ServiceAccount next to its RBAC so tests apply one file per app", () => {
    for (const app of ["controller", "agent"]) {
      const objects = parseYamlDocuments(readFileSync(join(MANIFESTS_DIR, `rbac-${app}.yaml`), "utf8"));
      expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
        `ServiceAccount/swh-${app}`,
        `ClusterRole/swh-${app}`,
        `ClusterRoleBinding/swh-${app}`,
        `Role/swh-${app}`,
        `RoleBinding/swh-${app}`,
      ]);
    }
  });
});
