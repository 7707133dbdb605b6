import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHART_DIR,
  DEPLOY_DIR,
  find,
  helmTemplate,
  helmTemplateRaw,
  KUBE_VERSION,
  requiredTool,
  run,
} from "./support/tools.ts";
import { container, envOf, podSpec } from "./support/workloads.ts";

const CUSTOM_VALUES = join(DEPLOY_DIR, "test/values-custom.yaml");

describe("helm lint", () => {
  it("passes for the default values", () => {
    const result = run(requiredTool("helm"), ["lint", CHART_DIR, "--strict", "--kube-version", KUBE_VERSION]);
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.status).toBe(0);
  });

  it("passes for a non-default values file", () => {
    const result = run(requiredTool("helm"), [
      "lint",
      CHART_DIR,
      "--strict",
      "--kube-version",
      KUBE_VERSION,
      "--values",
      CUSTOM_VALUES,
    ]);
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.status).toBe(0);
  });
});

describe("helm template with the default values", () => {
  const objects = helmTemplate();
  const controller = find(objects, "Deployment", "swh-controller");
  const agent = find(objects, "DaemonSet", "swh-agent");

  it("labels every object with the standard app.kubernetes.io labels", () => {
    for (const obj of objects) {
      expect(obj.metadata.labels, `${obj.kind}/${obj.metadata.name}`).toMatchObject({
        "app.kubernetes.io/name": "service-with-healthchecks",
        "app.kubernetes.io/instance": "swh",
        "app.kubernetes.io/version": "0.1.0",
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/part-of": "service-with-healthchecks",
      });
    }
  });

  it("runs two controller replicas with leader election, guarded by a PDB", () => {
    expect(controller.spec.replicas).toBe(2);
    const args: string[] = container(controller, "controller").args;
    expect(args).toContain("--leader-elect=true");
    expect(args).toContain("--namespace=$(POD_NAMESPACE)");
    expect(args).toContain("--log-level=info");
    expect(envOf(container(controller, "controller"), "POD_NAMESPACE")?.valueFrom).toEqual({
      fieldRef: { fieldPath: "metadata.namespace" },
    });
    const pdb = find(objects, "PodDisruptionBudget", "swh-controller");
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(controller.spec.selector.matchLabels);
  });

  it("runs the agent on every node: tolerates every taint, NODE_NAME from the downward API, no host network", () => {
    expect(podSpec(agent).tolerations).toEqual([{ operator: "Exists" }]);
    expect(envOf(container(agent, "agent"), "NODE_NAME")?.valueFrom).toEqual({
      fieldRef: { fieldPath: "spec.nodeName" },
    });
    expect(podSpec(agent).hostNetwork).toBeUndefined();
  });

  it("uses each app's own ServiceAccount", () => {
    expect(podSpec(controller).serviceAccountName).toBe("swh-controller");
    expect(podSpec(agent).serviceAccountName).toBe("swh-agent");
    find(objects, "ServiceAccount", "swh-controller");
    find(objects, "ServiceAccount", "swh-agent");
  });

  it("gives every container a restricted security context", () => {
    for (const workload of [controller, agent]) {
      expect(podSpec(workload).securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      for (const c of podSpec(workload).containers) {
        expect(c.securityContext, `${workload.kind}/${c.name}`).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          runAsUser: 65534,
          runAsGroup: 65534,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        });
      }
    }
  });

  it("serves metrics from the apps themselves over HTTPS on every interface: no sidecar, a self-signed certificate", () => {
    for (const [workload, app] of [
      [controller, "controller"],
      [agent, "agent"],
    ] as const) {
      expect(podSpec(workload).containers.map((c: { name: string }) => c.name)).toEqual([app]);
      const args: string[] = container(workload, app).args;
      expect(args).toContain("--metrics-bind-address=:8443");
      expect(args).toContain("--health-bind-address=:8081");
      expect(args.filter((a) => a.startsWith("--metrics-tls-"))).toEqual([]);
      expect(container(workload, app).ports).toEqual([
        { name: "health", containerPort: 8081, protocol: "TCP" },
        { name: "https-metrics", containerPort: 8443, protocol: "TCP" },
      ]);
      expect(podSpec(workload).volumes).toBeUndefined();
    }
    expect(JSON.stringify(objects)).not.toContain("kube-rbac-proxy");
    expect(find(objects, "Service", "swh-agent-metrics").spec.ports).toEqual([
      { name: "https-metrics", port: 8443, targetPort: "https-metrics", protocol: "TCP" },
    ]);
  });

  it("probes /healthz and /readyz on the health port", () => {
    for (const [workload, app] of [
      [controller, "controller"],
      [agent, "agent"],
    ] as const) {
      expect(container(workload, app).livenessProbe.httpGet).toEqual({ path: "/healthz", port: "health" });
      expect(container(workload, app).readinessProbe.httpGet).toEqual({ path: "/readyz", port: "health" });
    }
  });

  it("aggregates SWH permissions into the built-in admin, edit and view roles", () => {
    const edit = find(objects, "ClusterRole", "swh-aggregate-to-edit");
    expect(edit.metadata.labels).toMatchObject({
      "rbac.authorization.k8s.io/aggregate-to-admin": "true",
      "rbac.authorization.k8s.io/aggregate-to-edit": "true",
    });
    expect(edit.rules[0].verbs).toEqual(expect.arrayContaining(["create", "update", "patch", "delete"]));
    const view = find(objects, "ClusterRole", "swh-aggregate-to-view");
    expect(view.metadata.labels).toMatchObject({ "rbac.authorization.k8s.io/aggregate-to-view": "true" });
    // Read-only: viewers never get a write verb.
    expect([...new Set(view.rules.flatMap((r: { verbs: string[] }) => r.verbs))].sort()).toEqual([
      "get",
      "list",
      "watch",
    ]);
  });

  it("renders no monitoring.coreos.com objects unless asked", () => {
    expect(objects.filter((o) => o.apiVersion.startsWith("monitoring.coreos.com/"))).toEqual([]);
  });
});

describe("helm template with a non-default values file", () => {
  const objects = helmTemplate({ valuesFiles: [CUSTOM_VALUES], namespace: "lb-system" });
  const controller = find(objects, "Deployment", "lb-controller");
  const agent = find(objects, "DaemonSet", "lb-agent");

  it("follows the values: names, images, replicas, ports, scheduling", () => {
    expect(controller.spec.replicas).toBe(1);
    // global.imageRegistry and each app's own tag; the agent pinned by its digest.
    expect(container(controller, "controller").image).toBe(
      "registry.example.test/platform/swh-controller:9.9.9",
    );
    expect(container(controller, "controller").imagePullPolicy).toBe("Always");
    expect(container(agent, "agent").image).toBe(
      "registry.example.test/platform/swh-agent:9.9.9@sha256:aaa26d6f378f6215d038f05802a6d861ff0f1eb8d66a561fb52ce56509422a9f",
    );
    expect(container(agent, "agent").imagePullPolicy).toBe("IfNotPresent");
    expect(container(controller, "controller").args).toContain("--leader-elect=false");
    expect(container(agent, "agent").args).toContain("--log-level=debug");
    expect(podSpec(controller).priorityClassName).toBe("system-cluster-critical");
    expect(podSpec(agent).tolerations).toEqual([
      { key: "dedicated", operator: "Equal", value: "lb", effect: "NoSchedule" },
    ]);
    // global.imagePullSecrets first, then imagePullSecrets, on both apps.
    for (const workload of [controller, agent])
      expect(podSpec(workload).imagePullSecrets).toEqual([{ name: "mirror-pull" }, { name: "regcred" }]);
    expect(objects.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
    for (const obj of objects)
      expect(obj.metadata.labels?.team, `${obj.kind}/${obj.metadata.name}`).toBe("networking");
  });

  it("mounts the metrics certificate Secret into both apps and points their TLS flags at it", () => {
    for (const [workload, app] of [
      [controller, "controller"],
      [agent, "agent"],
    ] as const) {
      expect(container(workload, app).args).toEqual(
        expect.arrayContaining([
          "--metrics-bind-address=:9090",
          "--metrics-tls-cert-file=/etc/swh/metrics-tls/tls.crt",
          "--metrics-tls-private-key-file=/etc/swh/metrics-tls/tls.key",
        ]),
      );
      expect(container(workload, app).volumeMounts).toContainEqual({
        name: "metrics-tls",
        mountPath: "/etc/swh/metrics-tls",
        readOnly: true,
      });
      expect(podSpec(workload).volumes).toContainEqual({
        name: "metrics-tls",
        secret: { secretName: "lb-metrics-tls" },
      });
      expect(container(workload, app).ports.map((p: { containerPort: number }) => p.containerPort)).toEqual([
        9091, 9090,
      ]);
    }
  });

  it("binds metrics.readers to the metrics-reader ClusterRole, cluster-wide as non-resource URLs need", () => {
    const binding = find(objects, "ClusterRoleBinding", "lb-metrics-reader");
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "lb-metrics-reader",
    });
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "prometheus-k8s", namespace: "monitoring" },
    ]);
  });
});

describe("values.schema.json", () => {
  it.each([
    ["logLevel=verbose", "logLevel"],
    ["controller.replicas=0", "replicas"],
    ["ports.health=70000", "health"],
    ["unknownKey=1", "unknownKey"],
    ["metrics.kubeRbacProxy.enabled=true", "kubeRbacProxy"],
    ["metrics.tls.secretName=Not_A_Name", "secretName"],
    ["image.repositoryPrefix=registry.example/team/", "repositoryPrefix"],
    ["crds.enabled=maybe", "enabled"],
  ])("rejects %s with a message naming the field", (value, field) => {
    const result = helmTemplateRaw({ set: [value] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(field);
  });
});
