/**
 * End-to-end behaviour: two controller replicas and one agent per node (three nodes) run as real processes from
 * their bundles with the chart's RBAC, against the real control plane; backends are real servers on pod addresses.
 */
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api } from "@kubernetes/client-node";
import {
  GROUP,
  LABEL_MANAGED_BY,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import { createNode, createPod, deleteNode, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppProcess,
  createMailWorld,
  drainByAnnotation,
  type EndpointRow,
  hasEndpoint,
  installProduct,
  type MailPod,
  mailScenario,
  Product,
  readEndpoints,
  runScenario,
  startHttpBackend,
  tableSignature,
} from "../src/index.js";

let cluster: TestCluster;
let product: Product;
const backends: { close(): Promise<void> }[] = [];
const NODE_C = "node-c";

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE_C, zone: "zone-c" });
  product = new Product(cluster, { controllerArgs: ["--node-not-ready-grace=10s"] });
  await product.startController();
  await product.startController();
});

afterAll(async () => {
  await product?.stop();
  for (const b of backends) await b.close();
});

async function mailWorld(subnet: number): Promise<{ namespace: string; pods: MailPod[] }> {
  const namespace = await cluster.createNamespace("e2e");
  const pods = await createMailWorld(cluster, namespace, subnet);
  for (const p of pods) backends.push(p.web, p.smtp);
  for (const p of pods) if (!product.agents.has(p.node)) await product.startAgent(p.node);
  return { namespace, pods };
}

async function readSwh(namespace: string, name: string): Promise<ServiceWithHealthchecks> {
  const api = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  return (await api.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  })) as ServiceWithHealthchecks;
}

describe("two independent balancers on one VM (web + SMTP)", () => {
  it("a failing probe of one balancer withdraws the pod from that balancer only", async () => {
    const { namespace, pods } = await mailWorld(11);
    const outcomes = await runScenario(
      cluster.kubeConfig,
      namespace,
      mailScenario(pods, drainByAnnotation(cluster.kubeConfig, namespace)),
      {
        timeoutMs: 45_000,
      },
    );
    expect(outcomes.filter((o) => !o.converged).map((o) => o.title)).toEqual([]);

    // The controller mirrors the published state into status: both pods ready on both balancers.
    for (const name of ["web", "smtp"]) {
      await waitFor(`status of ${name} counts 2/2`, async () => {
        const ports = (await readSwh(namespace, name)).status?.ports ?? [];
        return ports.length === 1 && ports[0]?.readyEndpoints === 2 && ports[0]?.totalEndpoints === 2;
      });
    }
    const service = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedService({ name: "web", namespace });
    expect(service.spec?.selector ?? {}).toEqual({});
    expect(service.spec?.ports?.map((p) => p.port)).toEqual([80]);
  });
});

describe("agent restart", () => {
  it("restarting an agent with nothing changed writes nothing and never withdraws an endpoint", async () => {
    const { namespace, pods } = await mailWorld(12);
    const node = pods[0]?.node ?? "";
    await waitFor("all endpoints ready", async () => {
      const rows = await readEndpoints(cluster.kubeConfig, namespace);
      return pods.every(
        (p) => hasEndpoint(rows, "web", p.name, true) && hasEndpoint(rows, "smtp", p.name, true),
      );
    });
    const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    const versions = async () =>
      (
        await discovery.listNamespacedEndpointSlice({
          namespace,
          labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
        })
      ).items
        .map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`)
        .sort();
    const before = await versions();

    // Watch the published table throughout: no row may ever turn not-ready.
    const seen: EndpointRow[][] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        seen.push(await readEndpoints(cluster.kubeConfig, namespace));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const old = product.agents.get(node) as AppProcess;
    expect(await old.stop()).toBe(0);
    const restarted = await product.startAgent(node);
    // Let the new agent run several probe periods (1 s) past its initial sync.
    await waitFor(
      "restarted agent ran probes",
      async () => /swh_probe_results_total\{[^}]*\} [1-9]/.test(await restarted.metrics()),
      {
        timeoutMs: 30_000,
      },
    );
    await new Promise((r) => setTimeout(r, 3_000));
    watching = false;
    await watcher;

    expect(await versions()).toEqual(before);
    expect(seen.length).toBeGreaterThan(10);
    const notReady = seen.flat().filter((r) => !r.ready);
    expect(notReady).toEqual([]);
    expect(new Set(seen.map(tableSignature)).size).toBe(1);
  });
});

describe("controller leader killed", () => {
  it("the other replica takes over and keeps the Service in sync", async () => {
    const leader = await waitFor("one controller leads", async () => {
      for (const c of product.controllers.values()) if (/^swh_leader 1$/m.test(await c.metrics())) return c;
      return undefined;
    });
    await leader.kill();
    const namespace = await cluster.createNamespace("e2e");
    await cluster.apply(
      [
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: "ServiceWithHealthchecks",
          metadata: { name: "after-failover", namespace },
          spec: { selector: { app: "none" }, ports: [{ name: "http", port: 8080 }] },
        },
      ],
      { namespace },
    );
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const service = await waitFor(
      "Service created by the new leader",
      () => core.readNamespacedService({ name: "after-failover", namespace }).catch(() => undefined),
      { timeoutMs: 40_000 },
    );
    expect(service.spec?.ports?.[0]?.port).toBe(8080);
    await product.startController(); // back to two replicas for the following tests
  });
});

describe("deletions", () => {
  it("deleting a Node removes its slices; deleting an SWH removes its Service and slices", async () => {
    const namespace = await cluster.createNamespace("e2e");
    const backend = await startHttpBackend("10.244.13.10", 8080);
    backends.push(backend);
    await createPod(cluster.kubeConfig, {
      name: "web-c",
      namespace,
      node: NODE_C,
      ips: ["10.244.13.10"],
      labels: { app: "web" },
      containerPorts: [{ name: "http", containerPort: 8080 }],
    });
    if (!product.agents.has(NODE_C)) await product.startAgent(NODE_C);
    await cluster.apply(
      [
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: "ServiceWithHealthchecks",
          metadata: { name: "web-c", namespace },
          spec: {
            selector: { app: "web" },
            ports: [{ name: "http", port: 80, targetPort: "http" }],
            healthcheck: {
              initialDelaySeconds: 0,
              periodSeconds: 1,
              probes: [{ mode: "TCP", tcp: { targetPort: 8080 } }],
            },
          },
        },
      ],
      { namespace },
    );
    await waitFor("web-c published ready", async () =>
      hasEndpoint(await readEndpoints(cluster.kubeConfig, namespace), "web-c", "web-c", true),
    );

    await product.agents.get(NODE_C)?.stop();
    await deleteNode(cluster.kubeConfig, NODE_C);
    await waitFor(
      "slices of the deleted node removed",
      async () => (await readEndpoints(cluster.kubeConfig, namespace)).length === 0,
    );

    const api = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    await api.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name: "web-c",
    });
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await waitFor(
      "Service garbage-collected",
      async () => (await core.listNamespacedService({ namespace })).items.length === 0,
    );
  });
});
