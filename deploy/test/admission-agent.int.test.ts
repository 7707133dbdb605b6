/**
 * The product under its own admission policies: the real agent (in-process `runAgent`), running with the token
 * the kubelet mounts into its Pod, probes a pod of its node, opens that pod's readiness gate, publishes the slice
 * and renews its heartbeat with no write denied. The policy tests (admission.int.test.ts) prove what is denied; this proves the agent's
 * own writes are not.
 */
import { createServer, type Server } from "node:net";
import { Writable } from "node:stream";
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type V1EndpointSlice,
} from "@kubernetes/client-node";
import { type RunningAgent, runAgent } from "@swh/agent";
import { newServiceFor } from "@swh/aggregation";
import {
  ANNOTATION_NODE_NAME,
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  MANAGED_BY,
  PLURAL,
  READINESS_GATE_PREFIX,
  type ServiceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import { createLogger } from "@swh/kube";
import { applyReadinessGates, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import {
  INSTALL_NAMESPACE,
  installAgentWithPolicy,
  type NodeAgent,
  startNodeAgent,
  uniqueNodeName,
} from "./support/node-agents.ts";

const POD_IP = "10.244.181.5";
const PORT = 8080;

let cluster: TestCluster;
let node: NodeAgent;
let agent: RunningAgent | undefined;
let backend: Server | undefined;
const logs: string[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  await installAgentWithPolicy(cluster);
  node = await startNodeAgent(cluster, uniqueNodeName("node-agent"));
  // The agent's TCP probe ends its connection with a reset (ADR 0044): the socket's ECONNRESET is expected here.
  backend = createServer((socket) => socket.on("error", () => socket.destroy()).end());
  await new Promise<void>((resolve, reject) => {
    backend?.once("error", reject).listen(PORT, POD_IP, resolve);
  });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  agent = await runAgent({
    kubeConfig: node.kubeConfig,
    nodeName: node.nodeName,
    namespace: INSTALL_NAMESPACE,
    logger: createLogger({ level: "debug", stream }),
    coalesceMs: 50,
    heartbeatIntervalMs: 1_000,
  });
});

afterAll(async () => {
  await agent?.stop();
  await new Promise<void>((resolve) => (backend ? backend.close(() => resolve()) : resolve()));
});

describe("the agent with its pod-bound token under the admission policies", () => {
  it("publishes its node's probed endpoint and renews its heartbeat, with no write denied", async () => {
    onTestFailed(() => console.log(`agent log (last 30 lines):\n${logs.slice(-30).join("")}`));
    const namespace = await cluster.createNamespace("shop");
    await createPod(cluster.kubeConfig, {
      name: "web-0",
      namespace,
      node: node.nodeName,
      ips: [POD_IP],
      labels: { app: "web" },
      containerPorts: [{ name: "http", containerPort: PORT }],
      readinessGates: [`${READINESS_GATE_PREFIX}web`],
    });
    const swh = (await cluster.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace,
      body: {
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: { name: "web" },
        spec: {
          selector: { app: "web" },
          ports: [{ name: "http", port: 80, targetPort: PORT }],
          healthcheck: {
            initialDelaySeconds: 0,
            periodSeconds: 1,
            probes: [{ mode: "TCP", tcp: { targetPort: PORT } }],
          },
        },
      },
    })) as ServiceWithHealthchecks;
    // The Service the controller creates (its own code): the agent publishes only for a Service the SWH controls
    // (ADR 0014), watches only Services with the controller's label (ADR 0025) and reads the spec from it (ADR 0032).
    await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedService({ namespace, body: newServiceFor(swh) });

    // The pod's readiness gate, written by the agent under the pod-status policy; then Ready as the kubelet sets it.
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await waitFor("the agent to open web-0's readiness gate", async () => {
      const pod = await core.readNamespacedPodStatus({ name: "web-0", namespace });
      return pod.status?.conditions?.some(
        (c) => c.type === `${READINESS_GATE_PREFIX}web` && c.status === "True",
      );
    });
    expect(await applyReadinessGates(cluster.kubeConfig, namespace, "web-0")).toBe(true);

    const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    const slice = await waitFor("the agent to publish web-0 ready", async () => {
      const { items } = await discovery.listNamespacedEndpointSlice({
        namespace,
        labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
      });
      return items.find((s: V1EndpointSlice) =>
        s.endpoints?.some((e) => e.addresses.includes(POD_IP) && e.conditions?.ready === true),
      );
    });
    expect(slice.metadata?.annotations?.[ANNOTATION_NODE_NAME]).toBe(node.nodeName);
    expect(slice.endpoints?.map((e) => e.nodeName)).toEqual([node.nodeName]);

    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const heartbeat = await waitFor("the agent's heartbeat Lease", async () => {
      const { items } = await leases.listNamespacedLease({ namespace: INSTALL_NAMESPACE });
      return items.find((l) => l.spec?.holderIdentity === node.nodeName);
    });
    expect(heartbeat.metadata?.name?.startsWith("swh-agent-")).toBe(true);

    // Every slice write succeeded, and the heartbeat never failed.
    const writes = (await agent?.registry.getSingleMetric("swh_slice_writes_total")?.get())?.values ?? [];
    const failed = writes.filter((v) => v.labels.result !== "success" && v.value > 0);
    expect(failed).toEqual([]);
    expect(writes.some((v) => v.labels.action === "create" && v.value > 0)).toBe(true);
    const gateWrites = (await agent?.registry.getSingleMetric("swh_readiness_gate_writes_total")?.get())
      ?.values;
    // True after the first passing check, and False (NotProbedYet) before it when the SWH was reconciled before
    // the first result came: one or two writes, none refused.
    expect(gateWrites?.map((v) => v.labels.result)).toEqual(["success"]);
    expect(gateWrites?.[0]?.value).toBeGreaterThanOrEqual(1);
    expect(gateWrites?.[0]?.value).toBeLessThanOrEqual(2);
    expect(logs.filter((line) => line.includes("heartbeat renewal failed"))).toEqual([]);
  });
});
