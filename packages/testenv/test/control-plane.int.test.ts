import {
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
  RbacAuthorizationV1Api,
  type V1ConfigMap,
} from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "../src/index.ts";
import { httpGet } from "../src/internal/http-get.ts";

let cluster: TestCluster;
let kc: KubeConfig;

beforeAll(async () => {
  cluster = await testCluster();
  kc = cluster.kubeConfig;
});

function statusOf(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

describe("control plane", () => {
  it("answers /readyz with ok", async () => {
    const res = await httpGet(`${cluster.info.server}/readyz`, {
      caPem: cluster.info.caPem,
      token: cluster.info.adminToken,
    });
    expect(res).toEqual({ status: 200, body: "ok" });
  });

  it("accepts a Node, a Pod with IP 10.244.0.2 and an EndpointSlice holding that address", async () => {
    const ns = await cluster.createNamespace("slice");
    const node = `node-${ns}`;
    await createNode(kc, { name: node, zone: "zone-a" });
    await createPod(kc, { name: "web-0", namespace: ns, node, ips: ["10.244.0.2"], labels: { app: "web" } });
    const core = kc.makeApiClient(CoreV1Api);
    const pod = await core.readNamespacedPod({ name: "web-0", namespace: ns });
    expect(pod.status?.podIP).toBe("10.244.0.2");
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");

    await core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: "web" }, spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
    });
    const discovery = kc.makeApiClient(DiscoveryV1Api);
    const slice = await discovery.createNamespacedEndpointSlice({
      namespace: ns,
      body: {
        metadata: { name: "web-1", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        endpoints: [{ addresses: ["10.244.0.2"], conditions: { ready: true }, nodeName: node }],
      },
    });
    expect(slice.endpoints?.[0]?.addresses).toEqual(["10.244.0.2"]);
  });

  it("rejects an EndpointSlice with a loopback address (the trap that needs the network namespace)", async () => {
    const ns = await cluster.createNamespace("loopback");
    const discovery = kc.makeApiClient(DiscoveryV1Api);
    const attempt = discovery.createNamespacedEndpointSlice({
      namespace: ns,
      body: {
        metadata: { name: "lo" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["127.0.0.2"] }],
      },
    });
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(422);
    expect(String(error)).toContain("loopback");
  });

  it("denies a ServiceAccount without RBAC (403) and allows it once a Role is bound", async () => {
    const ns = await cluster.createNamespace("rbac");
    await kc
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "visible" } } });
    const sa = await cluster.serviceAccountKubeConfig(ns, "reader");
    const asSa = sa.kubeConfig.makeApiClient(CoreV1Api);
    const denied = await asSa.listNamespacedConfigMap({ namespace: ns }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(denied)).toBe(403);

    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: "configmap-reader" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: "reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "configmap-reader" },
        subjects: [{ kind: "ServiceAccount", name: "reader", namespace: ns }],
      },
    });
    // RBAC changes reach the authorizer through an informer: eventually, not instantly.
    const list = await waitFor("the bound ServiceAccount to list configmaps", () =>
      asSa.listNamespacedConfigMap({ namespace: ns }),
    );
    expect(list.items.map((c) => c.metadata?.name)).toEqual(["visible"]);
  });

  it("garbage-collects a dependent when its owner is deleted (kube-controller-manager runs)", async () => {
    const ns = await cluster.createNamespace("gc");
    const core = kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "owner" } },
    });
    const dependent: V1ConfigMap = {
      metadata: {
        name: "dependent",
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "" },
        ],
      },
    };
    await core.createNamespacedConfigMap({ namespace: ns, body: dependent });
    await core.deleteNamespacedConfigMap({ name: "owner", namespace: ns });
    await waitFor("the dependent ConfigMap to be garbage-collected", async () => {
      const names = (await core.listNamespacedConfigMap({ namespace: ns })).items.map(
        (c) => c.metadata?.name,
      );
      return !names.includes("dependent") && names;
    });
  });
});
