import { describe, expect, it } from "vitest";
import { helmTemplate, type RenderedObject } from "./support/tools.ts";

/** One RBAC rule flattened to comparable strings: "<group>/<resource>:<verb>". */
function grants(role: RenderedObject): string[] {
  const out: string[] = [];
  for (const rule of role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]) {
    for (const group of rule.apiGroups)
      for (const resource of rule.resources)
        for (const verb of rule.verbs) out.push(`${group}/${resource}:${verb}`);
  }
  return out.sort();
}

function expand(spec: Record<string, string[]>): string[] {
  return Object.entries(spec)
    .flatMap(([resource, verbs]) => verbs.map((verb) => `${resource}:${verb}`))
    .sort();
}

const SWH = "network.deckhouse.io/servicewithhealthchecks";
// Both apps authenticate and authorise /metrics scrapers themselves (ADR 0017).
const METRICS_REVIEWS = {
  "authentication.k8s.io/tokenreviews": ["create"],
  "authorization.k8s.io/subjectaccessreviews": ["create"],
};

// Exactly the permissions of the cross-package contract (RBAC section); nothing more.
const CONTROLLER_CLUSTER = expand({
  [SWH]: ["get", "list", "watch"],
  [`${SWH}/status`]: ["get", "update", "patch"],
  "/services": ["get", "list", "watch", "create", "update", "patch"],
  "discovery.k8s.io/endpointslices": ["get", "list", "watch", "delete"],
  "/nodes": ["get", "list", "watch"],
  "/events": ["create", "patch"],
  "events.k8s.io/events": ["create", "patch"],
  ...METRICS_REVIEWS,
});
const CONTROLLER_NAMESPACE = expand({
  "coordination.k8s.io/leases": ["get", "list", "watch", "create", "update", "patch"],
});
const AGENT_CLUSTER = expand({
  "/pods": ["get", "list", "watch"],
  [SWH]: ["get", "list", "watch"],
  "/services": ["get", "list", "watch"],
  "discovery.k8s.io/endpointslices": ["get", "list", "watch", "create", "update", "patch", "delete"],
  "/nodes": ["get", "list", "watch"],
  "/events": ["create", "patch"],
  "events.k8s.io/events": ["create", "patch"],
  ...METRICS_REVIEWS,
});
// The heartbeat: read, create, replace (packages/kube/src/heartbeat.ts); which Lease is the admission
// policy's job (ADR 0018).
const AGENT_NAMESPACE = expand({ "coordination.k8s.io/leases": ["get", "create", "update"] });

describe("least-privilege RBAC", () => {
  const objects = helmTemplate();
  const byKindName = (kind: string, name: string) =>
    objects.filter((o) => o.kind === kind && o.metadata.name === name);

  it.each([
    ["swh-controller", CONTROLLER_CLUSTER, CONTROLLER_NAMESPACE],
    ["swh-agent", AGENT_CLUSTER, AGENT_NAMESPACE],
  ])("%s gets exactly the contract's permissions", (name, cluster, namespaced) => {
    const [clusterRole] = byKindName("ClusterRole", name);
    const [role] = byKindName("Role", name);
    if (!clusterRole || !role) throw new Error(`missing ClusterRole or Role ${name}`);
    expect(grants(clusterRole)).toEqual(cluster);
    expect(grants(role)).toEqual(namespaced);
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
