import { describe, expect, it } from "vitest";
import { helmTemplate } from "./support/tools.ts";

// Which verbs each app's roles grant is proven by use, not listed here a second time:
// packages/e2e/test/rbac-used.int.test.ts fails when a rule is missing or unused (ADR 0021). This file checks the
// shape that test cannot see: who the roles are bound to, where the Role lives, and no wildcard.
describe("least-privilege RBAC", () => {
  const objects = helmTemplate();
  const byKindName = (kind: string, name: string) =>
    objects.filter((o) => o.kind === kind && o.metadata.name === name);

  it.each(["swh-controller", "swh-agent"])("%s's roles are bound to its own ServiceAccount only", (name) => {
    const [clusterRole] = byKindName("ClusterRole", name);
    const [role] = byKindName("Role", name);
    if (!clusterRole || !role) throw new Error(`missing ClusterRole or Role ${name}`);
    expect(role.metadata.namespace).toBe("swh-system");
    // Bindings give each role to the app's ServiceAccount only.
    for (const kind of ["ClusterRoleBinding", "RoleBinding"]) {
      const [binding] = byKindName(kind, name);
      expect(binding?.roleRef, kind).toEqual({
        apiGroup: "rbac.authorization.k8s.io",
        kind: kind === "RoleBinding" ? "Role" : "ClusterRole",
        name,
      });
      expect(binding?.subjects).toEqual([{ kind: "ServiceAccount", name, namespace: "swh-system" }]);
    }
  });

  it("lets metrics readers get only the non-resource URL /metrics, and binds nobody by default", () => {
    const [reader] = byKindName("ClusterRole", "swh-metrics-reader");
    expect(reader?.rules).toEqual([{ nonResourceURLs: ["/metrics"], verbs: ["get"] }]);
    expect(byKindName("ClusterRoleBinding", "swh-metrics-reader")).toEqual([]);
  });

  it("grants no wildcard anywhere", () => {
    const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    for (const role of roles) expect(JSON.stringify(role.rules), role.metadata.name).not.toContain('"*"');
  });
});
