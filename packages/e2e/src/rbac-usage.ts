/**
 * Compares the permissions the chart grants an app with the requests the app really made (a kube-apiserver
 * audit log): a request refused with 403 is a missing rule, a granted (apiGroup, resource, verb) never requested
 * is an unused one. Permissions are strings "<apiGroup>/<resource>[/<subresource>]:<verb>" (core group: empty).
 */
import type { AuditEvent } from "@swh/testenv";

interface RbacObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: { apiGroups?: string[]; resources?: string[]; verbs?: string[]; nonResourceURLs?: string[] }[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** What the audit log says about one ServiceAccount: permissions used, and requests refused (403). */
export interface MeasuredUse {
  used: Set<string>;
  refused: string[];
}

/**
 * Every resource permission that `objects` (rendered manifests) grant the ServiceAccount `namespace/name` through
 * (Cluster)RoleBindings. Non-resource URLs are not expanded (the apps serve /metrics; they do not read any).
 */
export function grantedPermissions(
  objects: readonly RbacObject[],
  namespace: string,
  name: string,
): Set<string> {
  const out = new Set<string>();
  for (const binding of objects) {
    if (binding.kind !== "RoleBinding" && binding.kind !== "ClusterRoleBinding") continue;
    const bound = binding.subjects?.some(
      (s) => s.kind === "ServiceAccount" && s.name === name && s.namespace === namespace,
    );
    if (!bound || binding.roleRef === undefined) continue;
    const ref = binding.roleRef;
    const role = objects.find(
      (o) =>
        o.kind === ref.kind &&
        o.metadata?.name === ref.name &&
        (ref.kind === "ClusterRole" || o.metadata?.namespace === binding.metadata?.namespace),
    );
    if (role === undefined)
      throw new Error(`${binding.kind} ${binding.metadata?.name}: ${ref.kind} ${ref.name} is missing`);
    for (const rule of role.rules ?? []) {
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs ?? []) out.add(`${group}/${resource}:${verb}`);
    }
  }
  return out;
}

/** The permissions `username` used and the requests it was refused, from audit `events`. */
export function measuredUse(events: readonly AuditEvent[], username: string): MeasuredUse {
  const used = new Set<string>();
  const refused = new Set<string>();
  for (const event of events) {
    if (event.user.username !== username) continue;
    const ref = event.objectRef;
    const permission =
      ref?.resource === undefined
        ? `${event.requestURI}:${event.verb}`
        : `${ref.apiGroup ?? ""}/${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""}:${event.verb}`;
    if (event.responseStatus?.code === 403) refused.add(`${permission} (${event.verb} ${event.requestURI})`);
    else used.add(permission);
  }
  return { used, refused: [...refused].sort() };
}

/** Granted permissions never used, except those in `unreached` (permission → why the scenario cannot use it). */
export function unusedPermissions(
  granted: ReadonlySet<string>,
  used: ReadonlySet<string>,
  unreached: Readonly<Record<string, string>> = {},
): string[] {
  return [...granted].filter((p) => !used.has(p) && !(p in unreached)).sort();
}
