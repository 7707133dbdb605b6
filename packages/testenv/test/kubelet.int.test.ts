import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createNode,
  createPod,
  deleteNode,
  forceDeletePod,
  markPodTerminating,
  setNodeReady,
  setPodReady,
  type TestCluster,
  testCluster,
  ZONE_LABEL,
} from "../src/index.ts";

let cluster: TestCluster;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await testCluster();
  kc = cluster.kubeConfig;
  core = kc.makeApiClient(CoreV1Api);
});

function condition(conditions: { type: string; status: string }[] | undefined, type: string) {
  return conditions?.find((c) => c.type === type)?.status;
}

describe("kubelet-like helpers", () => {
  it("creates a Ready node with its zone label, flips Ready and deletes it", async () => {
    const name = `node-${(await cluster.createNamespace("node")).slice(5)}`;
    await createNode(kc, { name, zone: "zone-b", labels: { pool: "x" }, addresses: ["10.244.100.1"] });
    let node = await core.readNode({ name });
    expect(node.metadata?.labels).toMatchObject({ [ZONE_LABEL]: "zone-b", pool: "x" });
    expect(condition(node.status?.conditions, "Ready")).toBe("True");

    await setNodeReady(kc, name, false);
    node = await core.readNode({ name });
    expect(condition(node.status?.conditions, "Ready")).toBe("False");

    await deleteNode(kc, name);
    const gone = await core.readNode({ name }).then(
      () => 200,
      (e: { code?: number }) => e.code,
    );
    expect(gone).toBe(404);
  });

  it("creates a dual-stack pod with ports, makes it unready and ready again", async () => {
    const ns = await cluster.createNamespace("pod");
    const node = `node-${ns}`;
    await createNode(kc, { name: node, addresses: ["10.244.100.2", "fd00:10:244::100:2"] });
    await createPod(kc, {
      name: "db-0",
      namespace: ns,
      node,
      ips: ["10.244.1.5", "fd00:10:244::1:5"],
      containerPorts: [{ name: "pg", containerPort: 5432 }],
    });
    let pod = await core.readNamespacedPod({ name: "db-0", namespace: ns });
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.podIPs).toEqual([{ ip: "10.244.1.5" }, { ip: "fd00:10:244::1:5" }]);
    expect(pod.status?.hostIPs).toEqual([{ ip: "10.244.100.2" }, { ip: "fd00:10:244::100:2" }]);
    expect(pod.spec?.containers[0]?.ports).toEqual([{ name: "pg", containerPort: 5432, protocol: "TCP" }]);

    await setPodReady(kc, ns, "db-0", false);
    pod = await core.readNamespacedPod({ name: "db-0", namespace: ns });
    expect(condition(pod.status?.conditions, "Ready")).toBe("False");
    expect(condition(pod.status?.conditions, "ContainersReady")).toBe("False");
    expect(pod.status?.containerStatuses?.[0]?.ready).toBe(false);

    await setPodReady(kc, ns, "db-0", true);
    pod = await core.readNamespacedPod({ name: "db-0", namespace: ns });
    expect(condition(pod.status?.conditions, "Ready")).toBe("True");
  });

  it("leaves a gracefully deleted pod Terminating until it is force-deleted", async () => {
    const ns = await cluster.createNamespace("term");
    const node = `node-${ns}`;
    await createNode(kc, { name: node });
    await createPod(kc, { name: "web-0", namespace: ns, node, ips: ["10.244.2.7"], ready: false });

    await markPodTerminating(kc, ns, "web-0");
    const pod = await core.readNamespacedPod({ name: "web-0", namespace: ns });
    expect(pod.metadata?.deletionTimestamp).toBeDefined();
    expect(pod.status?.podIP).toBe("10.244.2.7");

    await forceDeletePod(kc, ns, "web-0");
    const pods = await core.listNamespacedPod({ namespace: ns });
    expect(pods.items).toEqual([]);
  });
});
