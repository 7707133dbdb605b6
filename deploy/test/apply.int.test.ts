import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, KubernetesObjectApi, type V1Pod } from "@kubernetes/client-node";
import { testCluster } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { DEPLOY_DIR, find, helmTemplate, parseYamlDocuments, type RenderedObject } from "./support/tools.ts";

// Order a user would `kubectl apply` them in: namespace and CRD first, workloads last.
const MANIFEST_FILES = [
  "namespace.yaml",
  "crd.yaml",
  "rbac-controller.yaml",
  "rbac-agent.yaml",
  "rbac-agent-credentials.yaml",
  "rbac-metrics.yaml",
  "rbac-aggregate.yaml",
  "admission-agent.yaml",
  "metrics.yaml",
  "controller.yaml",
  "agent.yaml",
];

function manifest(file: string): RenderedObject[] {
  return parseYamlDocuments(readFileSync(join(DEPLOY_DIR, "manifests", file), "utf8"));
}

/** A Pod as the Deployment/DaemonSet controller would create it from `workload`'s template. */
function podFrom(workload: RenderedObject, nodeName?: string): V1Pod {
  const template = structuredClone(workload.spec.template);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${workload.metadata.name}-dry-run`, labels: template.metadata.labels },
    spec: nodeName ? { ...template.spec, nodeName } : template.spec,
  };
}

describe("rendered manifests on the real API server", () => {
  it("applies every file of deploy/manifests server-side, and reads each object back", async () => {
    const cluster = await testCluster();
    const objects = MANIFEST_FILES.flatMap(manifest);
    expect(objects.length).toBeGreaterThan(15);
    await cluster.apply(objects);
    const client = cluster.kubeConfig.makeApiClient(KubernetesObjectApi);
    for (const obj of objects) {
      const read = await client.read({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace ?? "" },
      });
      expect(read.metadata?.uid, `${obj.kind}/${obj.metadata.name}`).toBeTruthy();
      expect(read.metadata?.labels, `${obj.kind}/${obj.metadata.name}`).toMatchObject(
        obj.metadata.labels ?? {},
      );
    }
  });

  it("passes the restricted Pod Security Standard: pods of both workloads are admitted in swh-system", async () => {
    const cluster = await testCluster();
    await cluster.apply(manifest("namespace.yaml"));
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const objects = [...manifest("controller.yaml"), ...manifest("agent.yaml")];
    for (const workload of [
      find(objects, "Deployment", "swh-controller"),
      find(objects, "DaemonSet", "swh-agent"),
    ]) {
      // dryRun=All runs admission (PodSecurity enforce=restricted) without persisting the Pod.
      const pod = await core.createNamespacedPod({
        namespace: "swh-system",
        body: podFrom(workload),
        dryRun: "All",
      });
      expect(pod.spec?.securityContext?.runAsNonRoot).toBe(true);
    }
  });

  it("rejects a pod that breaks the restricted standard in swh-system (the check above can fail)", async () => {
    const cluster = await testCluster();
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const workload = find(manifest("agent.yaml"), "DaemonSet", "swh-agent");
    const pod = podFrom(workload);
    if (pod.spec) pod.spec.hostNetwork = true;
    await expect(
      core.createNamespacedPod({ namespace: "swh-system", body: pod, dryRun: "All" }),
    ).rejects.toThrow(/hostNetwork/);
  });

  it("applies the chart rendered with a non-default values file into another namespace", async () => {
    const cluster = await testCluster();
    const namespace = await cluster.createNamespace("lb-system");
    const objects = helmTemplate({ valuesFiles: [join(DEPLOY_DIR, "test/values-custom.yaml")], namespace });
    // The test control plane serves no prometheus-operator CRDs; those objects are checked by the chart tests.
    const core = objects.filter((o) => !o.apiVersion.startsWith("monitoring.coreos.com/"));
    expect(objects.length - core.length).toBe(5); // 2 ServiceMonitors, 2 PodMonitors, 1 PrometheusRule
    await cluster.apply(core);
    const client = cluster.kubeConfig.makeApiClient(KubernetesObjectApi);
    const deployment = await client.read({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "lb-controller", namespace },
    });
    expect((deployment as RenderedObject).spec.replicas).toBe(1);
  });
});
