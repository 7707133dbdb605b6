import type { AuditEvent } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { grantedPermissions, measuredUse, unusedPermissions } from "../src/rbac-usage.js";

const SA = "system:serviceaccount:swh-system:app";
const objects = [
  {
    kind: "ClusterRole",
    metadata: { name: "app" },
    rules: [{ apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] }],
  },
  {
    kind: "ClusterRole",
    metadata: { name: "unbound" },
    rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
  },
  {
    kind: "ClusterRoleBinding",
    metadata: { name: "app" },
    roleRef: { kind: "ClusterRole", name: "app" },
    subjects: [{ kind: "ServiceAccount", name: "app", namespace: "swh-system" }],
  },
  {
    kind: "Role",
    metadata: { name: "app", namespace: "swh-system" },
    rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get"] }],
  },
  {
    kind: "RoleBinding",
    metadata: { name: "app", namespace: "swh-system" },
    roleRef: { kind: "Role", name: "app" },
    subjects: [{ kind: "ServiceAccount", name: "app", namespace: "swh-system" }],
  },
];

function event(verb: string, resource: string, code: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    stage: "ResponseComplete",
    verb,
    requestURI: `/x/${resource}`,
    user: { username: SA },
    objectRef: { apiGroup: "events.k8s.io", resource },
    responseStatus: { code },
    ...extra,
  };
}

describe("RBAC usage", () => {
  it("expands the rules bound to the ServiceAccount, and only those", () => {
    expect([...grantedPermissions(objects, "swh-system", "app")].sort()).toEqual([
      "/events:create",
      "/events:patch",
      "coordination.k8s.io/leases:get",
      "events.k8s.io/events:create",
      "events.k8s.io/events:patch",
    ]);
  });

  it("counts refused requests as missing and lists granted permissions never used", () => {
    const use = measuredUse(
      [
        event("create", "events", 201),
        event("patch", "events", 403),
        event("get", "events", 200, { user: { username: "someone-else" } }),
      ],
      SA,
    );
    expect(use.refused).toEqual(["events.k8s.io/events:patch (patch /x/events)"]);
    expect([...use.used]).toEqual(["events.k8s.io/events:create"]);
    const granted = grantedPermissions(objects, "swh-system", "app");
    expect(unusedPermissions(granted, use.used, { "/events:patch": "why" })).toEqual([
      "/events:create",
      "coordination.k8s.io/leases:get",
      "events.k8s.io/events:patch",
    ]);
  });
});
