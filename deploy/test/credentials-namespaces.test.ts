/**
 * The chart's two opt-in boundaries of ADR 0020: Secrets readable by the agent only in the namespaces an
 * administrator lists (one RoleBinding each, and the same list as the agent's flag), and the NetworkPolicies of
 * the install namespace.
 */
import { describe, expect, it } from "vitest";
import { find, helmTemplate, helmTemplateRaw, type RenderedObject } from "./support/tools.ts";

function agentArgs(objects: readonly RenderedObject[]): string[] {
  const agent = find(objects, "DaemonSet", "swh-agent");
  return agent.spec.template.spec.containers.find((c: { name: string }) => c.name === "agent").args;
}

const SECRETS_RULE = { apiGroups: [""], resources: ["secrets"] };

describe("agent.credentialsNamespaces", () => {
  it("grants no Secret access anywhere by default and tells the agent so", () => {
    const objects = helmTemplate();
    for (const role of objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role")) {
      const secretRules = (role.rules as { resources?: string[] }[]).filter((r) =>
        (r.resources ?? []).includes("secrets"),
      );
      // Only the fixed credentials ClusterRole mentions Secrets, and nothing binds it.
      if (role.metadata.name === "swh-agent-credentials") continue;
      expect(secretRules, `${role.kind}/${role.metadata.name}`).toEqual([]);
    }
    const bindings = objects.filter((o) => o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding");
    expect(bindings.filter((b) => b.roleRef.name === "swh-agent-credentials")).toEqual([]);
    expect(agentArgs(objects)).toContain("--credentials-namespaces=");
  });

  it("binds the fixed list/watch ClusterRole in each listed namespace only, and passes the same list", () => {
    const objects = helmTemplate({ set: ["agent.credentialsNamespaces={team-a,team-b}"] });
    expect(find(objects, "ClusterRole", "swh-agent-credentials").rules).toEqual([
      { ...SECRETS_RULE, verbs: ["list", "watch"] },
    ]);
    const bindings = objects.filter(
      (o) => o.kind === "RoleBinding" && o.roleRef.name === "swh-agent-credentials",
    );
    expect(bindings.map((b) => b.metadata.namespace)).toEqual(["team-a", "team-b"]);
    for (const binding of bindings) {
      expect(binding.roleRef).toEqual({
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "swh-agent-credentials",
      });
      expect(binding.subjects).toEqual([
        { kind: "ServiceAccount", name: "swh-agent", namespace: "swh-system" },
      ]);
    }
    expect(
      objects.filter((o) => o.kind === "ClusterRoleBinding" && o.roleRef.name === "swh-agent-credentials"),
    ).toEqual([]);
    expect(agentArgs(objects)).toContain("--credentials-namespaces=team-a,team-b");
  });

  it.each([
    [
      "a name that is not a namespace name",
      "agent.credentialsNamespaces={Team_A}",
      "/agent/credentialsNamespaces/0",
    ],
    [
      "the same namespace twice",
      "agent.credentialsNamespaces={team-a,team-a}",
      "/agent/credentialsNamespaces",
    ],
  ])("rejects %s, naming the value", (_, set, field) => {
    const result = helmTemplateRaw({ set: [set] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(field);
  });
});

describe("networkPolicy", () => {
  it("renders no NetworkPolicy by default", () => {
    expect(helmTemplate().filter((o) => o.kind === "NetworkPolicy")).toEqual([]);
  });

  it("confines both apps to the API server and DNS, and lets only the agent reach pods", () => {
    const objects = helmTemplate({
      set: [
        "networkPolicy.enabled=true",
        "networkPolicy.apiServer.cidrs={172.18.0.2/32}",
        "networkPolicy.apiServer.ports={6443}",
      ],
    });
    const policies = objects.filter((o) => o.kind === "NetworkPolicy");
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(["swh-agent", "swh-controller"]);
    const apiServer = {
      to: [{ ipBlock: { cidr: "172.18.0.2/32" } }],
      ports: [{ port: 6443, protocol: "TCP" }],
    };
    const dns = {
      ports: [
        { port: 53, protocol: "UDP" },
        { port: 53, protocol: "TCP" },
      ],
    };
    for (const component of ["controller", "agent"]) {
      const policy = find(objects, "NetworkPolicy", `swh-${component}`);
      const workload = find(objects, component === "agent" ? "DaemonSet" : "Deployment", `swh-${component}`);
      expect(policy.metadata.namespace).toBe("swh-system");
      expect(policy.spec.podSelector.matchLabels).toEqual(workload.spec.selector.matchLabels);
      expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
      const probes = component === "agent" ? [{ to: [{ namespaceSelector: {} }] }] : [];
      expect(policy.spec.egress).toEqual([apiServer, dns, ...probes]);
      // Every named port a rule admits is a container port of the pod (or of its metrics sidecar).
      const podPorts = workload.spec.template.spec.containers.flatMap((c: { ports?: { name: string }[] }) =>
        (c.ports ?? []).map((p) => p.name),
      );
      const admitted = policy.spec.ingress.flatMap((rule: { ports: { port: string }[] }) =>
        rule.ports.map((p) => p.port),
      );
      expect(admitted).toContain("health");
      expect(admitted.filter((p: string) => podPorts.includes(p)).length).toBe(2);
    }
  });

  it("admits scrapes only from the configured peers", () => {
    const objects = helmTemplate({
      set: [
        "networkPolicy.enabled=true",
        "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring",
      ],
    });
    const metricsRule = find(objects, "NetworkPolicy", "swh-agent").spec.ingress.find(
      (r: { ports: { port: string }[] }) => r.ports.some((p) => p.port === "https-metrics"),
    );
    expect(metricsRule.from).toEqual([
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
    ]);
  });
});
