/**
 * Where traffic goes by topology and traffic policy (docs/traffic.md, ADR 0035), judged by traffic through a real
 * kube-proxy (iptables mode) on the real API server: the kube-proxy stands for one node at a time (one per network
 * namespace), in zone a or zone b, and requests are counted per answering pod. Hints are what kube-proxy reads; the
 * tests read them from the slices too, so a wrong route is told apart from a missing hint.
 */
import { CoreV1Api, DiscoveryV1Api } from "@kubernetes/client-node";
import {
  CONDITION_TYPES,
  httpProbe,
  type ServiceWithHealthchecksSpec,
  serviceWithHealthchecks,
} from "@swh/crd-types";
import {
  createNode,
  createPod,
  forceDeletePod,
  type KubeProxy,
  startKubeProxy,
  startOutsideClient,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Backend,
  countHttp,
  formatCount,
  installProduct,
  Product,
  readSwh,
  startHttpBackend,
} from "../src/index.js";

const ZONE_A = { name: "topo-a", zone: "zone-a", address: "10.244.252.1" };
const ZONE_B = { name: "topo-b", zone: "zone-b", address: "10.244.252.2" };
/** A node without a zone label (registered before its zone is known, or a cluster without zones). */
const NO_ZONE = { name: "topo-x", address: "10.244.252.3" };
/** Requests per measurement: a pod still routed to is missed by all of them with probability ≤ 2^-60. */
const N = 60;

let cluster: TestCluster;
let product: Product;
let proxy: KubeProxy | undefined;
const backends: Backend[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  for (const node of [ZONE_A, ZONE_B, NO_ZONE])
    await createNode(cluster.kubeConfig, { ...node, addresses: [node.address] });
  product = new Product(cluster);
  await product.startController();
  for (const node of [ZONE_A, ZONE_B, NO_ZONE]) await product.startAgent(node.name);
});

afterAll(async () => {
  await proxy?.stop();
  await product?.stop();
  for (const b of backends) await b.close();
});

/** kube-proxy standing for `node` (the one running is stopped first when it stands for another). */
async function proxyOn(node: { name: string }): Promise<KubeProxy> {
  if (proxy?.node === node.name) return proxy;
  await proxy?.stop();
  proxy = undefined;
  proxy = await startKubeProxy(cluster, { node: node.name, mode: "iptables" });
  return proxy;
}

interface WebPod {
  name: string;
  node: string;
  web: Backend;
}

/** One web pod per node in `nodes` under the SWH `web` (port 80 → 8080, an HTTP check every second) with `extra`. */
async function webWorld(
  subnet: number,
  extra: Partial<ServiceWithHealthchecksSpec>,
  nodes: readonly { name: string }[] = [ZONE_A, ZONE_B],
) {
  const namespace = await cluster.createNamespace("topology");
  const pods: WebPod[] = [];
  for (const [i, node] of nodes.entries()) {
    const name = `web-${node.name}`;
    const address = `10.244.${subnet}.${10 + i}`;
    const web = await startHttpBackend(address, 8080, name);
    backends.push(web);
    await createPod(cluster.kubeConfig, {
      name,
      namespace,
      node: node.name,
      ips: [address],
      labels: { app: "web" },
      containerPorts: [{ name: "http", containerPort: 8080 }],
    });
    pods.push({ name, node: node.name, web });
  }
  await cluster.apply(
    [
      serviceWithHealthchecks(
        { name: "web", namespace },
        {
          selector: { app: "web" },
          ports: [{ name: "http", port: 80, targetPort: "http" }],
          healthcheck: {
            initialDelaySeconds: 0,
            periodSeconds: 1,
            probes: [httpProbe("http", { path: "/healthz", timeoutSeconds: 1, failureThreshold: 2 })],
          },
          ...extra,
        },
      ),
    ],
    { namespace },
  );
  const service = await waitFor("the Service web has a ClusterIP", async () => {
    const s = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedService({ name: "web", namespace });
    return s.spec?.clusterIP === undefined ? undefined : s;
  });
  return { namespace, clusterIP: service.spec?.clusterIP ?? "", service, pods };
}

/** Waits until the running kube-proxy sends new connections to `web:http` exactly to `pods` (read from its rules). */
async function routedTo(namespace: string, pods: readonly WebPod[], policy?: "local"): Promise<void> {
  const want = pods.map((p) => `${p.web.address}:${p.web.port}`).sort();
  await waitFor(
    `kube-proxy (${proxy?.node}) routes ${namespace}/web:http${policy ? " (local)" : ""} to ${want.join(", ") || "nothing"}`,
    async () => {
      const routed = proxy?.routedEndpoints({ namespace, name: "web", port: "http", policy }) ?? [];
      if (routed.join(" ") === want.join(" ")) return true;
      // What a timeout reports: the rules as they are and the hints kube-proxy was given.
      throw new Error(`routed to [${routed.join(", ")}]; slices: ${await describeSlices(namespace)}`);
    },
  );
}

/** `pod-name → "zones:… nodes:…"` for every endpoint of the SWH's slices, as the agents wrote them. */
async function hintsByPod(namespace: string): Promise<Record<string, string>> {
  const slices = await cluster.kubeConfig.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
    namespace,
    labelSelector: "kubernetes.io/service-name=web",
  });
  const hints: Record<string, string> = {};
  for (const slice of slices.items) {
    for (const endpoint of slice.endpoints ?? []) {
      const zones = endpoint.hints?.forZones?.map((z) => z.name).join(",") ?? "-";
      const nodes = endpoint.hints?.forNodes?.map((n) => n.name).join(",") ?? "-";
      hints[endpoint.targetRef?.name ?? "?"] = `zones:${zones} nodes:${nodes}`;
    }
  }
  return hints;
}

/** Each slice of the SWH with its endpoints' addresses, readiness and hints: what kube-proxy is given. */
async function describeSlices(namespace: string): Promise<string> {
  const slices = await cluster.kubeConfig.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
    namespace,
    labelSelector: "kubernetes.io/service-name=web",
  });
  return slices.items
    .map((slice) => {
      const endpoints = (slice.endpoints ?? []).map((e) => {
        const zones = e.hints?.forZones?.map((z) => z.name).join(",") ?? "-";
        return `${e.addresses.join(",")} ready=${e.conditions?.ready} zones=${zones}`;
      });
      return `${slice.metadata?.name}@${slice.metadata?.resourceVersion} [${endpoints.join("; ")}]`;
    })
    .join(" | ");
}

async function waitForHints(namespace: string, want: Record<string, string>): Promise<void> {
  await waitFor(`the slices of ${namespace}/web carry ${JSON.stringify(want)}`, async () => {
    const seen = await hintsByPod(namespace);
    return JSON.stringify(seen, Object.keys(seen).sort()) === JSON.stringify(want, Object.keys(want).sort())
      ? true
      : undefined;
  });
}

async function topologyCondition(namespace: string) {
  const swh = await readSwh(cluster.kubeConfig, namespace, "web");
  return swh.status?.conditions?.find((c) => c.type === CONDITION_TYPES.topologyHints);
}

describe("trafficDistribution: PreferClose", () => {
  it("keeps requests in the client's zone; a zone whose endpoints all fail falls back to the other zone, and comes back", async () => {
    const { namespace, clusterIP, pods } = await webWorld(71, { trafficDistribution: "PreferClose" });
    const [a, b] = pods as [WebPod, WebPod];
    await waitForHints(namespace, {
      [a.name]: "zones:zone-a nodes:-",
      [b.name]: "zones:zone-b nodes:-",
    });
    await waitFor("TopologyHints is True", async () => {
      const c = await topologyCondition(namespace);
      return c?.status === "True" ? c : undefined;
    });

    await proxyOn(ZONE_A);
    await routedTo(namespace, [a]);
    const inZoneA = await countHttp(clusterIP, 80, N);
    console.log(`client in zone-a: ${formatCount(inZoneA)}`);
    expect(inZoneA).toMatchObject({ failed: 0, byPod: { [a.name]: N } });

    // Zone a's only endpoint fails: kube-proxy has no endpoint for zone a and routes to the others.
    await a.web.setHealthy(false);
    await routedTo(namespace, [b]);
    const zoneADown = await countHttp(clusterIP, 80, N);
    console.log(`client in zone-a, ${a.name} failing: ${formatCount(zoneADown)}`);
    expect(zoneADown).toMatchObject({ failed: 0, byPod: { [b.name]: N } });

    await a.web.setHealthy(true);
    await routedTo(namespace, [a]);
    const back = await countHttp(clusterIP, 80, N);
    console.log(`client in zone-a, ${a.name} passing again: ${formatCount(back)}`);
    expect(back).toMatchObject({ failed: 0, byPod: { [a.name]: N } });

    await proxyOn(ZONE_B);
    await routedTo(namespace, [b]);
    const inZoneB = await countHttp(clusterIP, 80, N);
    console.log(`client in zone-b: ${formatCount(inZoneB)}`);
    expect(inZoneB).toMatchObject({ failed: 0, byPod: { [b.name]: N } });
  });

  it("without the field, endpoints carry no hints and a client in zone a reaches both zones", async () => {
    const { namespace, clusterIP, pods } = await webWorld(72, {});
    const [a, b] = pods as [WebPod, WebPod];
    await proxyOn(ZONE_A);
    await routedTo(namespace, [a, b]);
    expect(await hintsByPod(namespace)).toEqual({
      [a.name]: "zones:- nodes:-",
      [b.name]: "zones:- nodes:-",
    });
    expect(await topologyCondition(namespace)).toBeUndefined();
    const count = await countHttp(clusterIP, 80, N);
    console.log(`no trafficDistribution, client in zone-a: ${formatCount(count)}`);
    expect(count.failed).toBe(0);
    expect(Object.keys(count.byPod).sort()).toEqual([a.name, b.name]);
  });

  it("an endpoint on a node without a zone: no endpoint gets a zone hint and TopologyHints names the node; without it, hints return", async () => {
    const { namespace, clusterIP, pods } = await webWorld(73, { trafficDistribution: "PreferClose" }, [
      ZONE_A,
      ZONE_B,
      NO_ZONE,
    ]);
    const [a, b, x] = pods as [WebPod, WebPod, WebPod];
    await waitForHints(namespace, {
      [a.name]: "zones:- nodes:-",
      [b.name]: "zones:- nodes:-",
      [x.name]: "zones:- nodes:-",
    });
    const condition = await waitFor("TopologyHints is False", async () => {
      const c = await topologyCondition(namespace);
      return c?.status === "False" ? c : undefined;
    });
    console.log(`TopologyHints: ${condition.reason}: ${condition.message}`);
    expect(condition.reason).toBe("NodeWithoutZone");
    expect(condition.message).toContain(NO_ZONE.name);

    await proxyOn(ZONE_A);
    await routedTo(namespace, [a, b, x]);
    const count = await countHttp(clusterIP, 80, N);
    console.log(`client in zone-a, one endpoint without a zone: ${formatCount(count)}`);
    expect(count.failed).toBe(0);
    expect(Object.keys(count.byPod).sort()).toEqual([a.name, b.name, x.name].sort());

    await forceDeletePod(cluster.kubeConfig, namespace, x.name);
    await waitForHints(namespace, {
      [a.name]: "zones:zone-a nodes:-",
      [b.name]: "zones:zone-b nodes:-",
    });
    await routedTo(namespace, [a]);
    expect(await topologyCondition(namespace)).toMatchObject({ status: "True", reason: "Hinted" });
  });
});

describe("trafficDistribution: PreferSameNode", () => {
  it("sends a client to the endpoints on its own node", async () => {
    const { namespace, clusterIP, pods } = await webWorld(74, { trafficDistribution: "PreferSameNode" });
    const [a, b] = pods as [WebPod, WebPod];
    await waitForHints(namespace, {
      [a.name]: `zones:zone-a nodes:${ZONE_A.name}`,
      [b.name]: `zones:zone-b nodes:${ZONE_B.name}`,
    });
    await proxyOn(ZONE_B);
    await routedTo(namespace, [b]);
    const count = await countHttp(clusterIP, 80, N);
    console.log(`PreferSameNode, client on ${ZONE_B.name}: ${formatCount(count)}`);
    expect(count).toMatchObject({ failed: 0, byPod: { [b.name]: N } });
  });
});

describe("traffic policies", () => {
  it("internalTrafficPolicy Local: a client reaches only its node's endpoints, and none when they fail", async () => {
    const { namespace, clusterIP, pods } = await webWorld(75, { internalTrafficPolicy: "Local" });
    const [, b] = pods as [WebPod, WebPod];
    await proxyOn(ZONE_B);
    await routedTo(namespace, [b], "local");
    const local = await countHttp(clusterIP, 80, N);
    console.log(`internalTrafficPolicy Local, client on ${ZONE_B.name}: ${formatCount(local)}`);
    expect(local).toMatchObject({ failed: 0, byPod: { [b.name]: N } });

    await b.web.setHealthy(false);
    await routedTo(namespace, [], "local");
    const none = await countHttp(clusterIP, 80, 10);
    console.log(`internalTrafficPolicy Local, ${b.name} failing: ${formatCount(none)}`);
    expect(none.byPod).toEqual({});
    expect(none.failed).toBe(10);
    await b.web.setHealthy(true);
  });

  it("externalTrafficPolicy Local (NodePort): a client outside the node reaches only that node's pod, none once it fails", async () => {
    const { namespace, service, pods } = await webWorld(76, {
      type: "NodePort",
      externalTrafficPolicy: "Local",
    });
    const [, b] = pods as [WebPod, WebPod];
    const nodePort = service.spec?.ports?.[0]?.nodePort ?? 0;
    expect(nodePort).toBeGreaterThan(0);
    await proxyOn(ZONE_B);
    await routedTo(namespace, [b], "local");
    // From outside the node: kube-proxy sends NodePort traffic from the node itself cluster-wide by design.
    const client = await startOutsideClient();
    try {
      const local = await client.countHttp(ZONE_B.address, nodePort, N);
      console.log(
        `externalTrafficPolicy Local, ${client.address} → ${ZONE_B.name}:${nodePort}: ${JSON.stringify(local)}`,
      );
      expect(local).toEqual({ byPod: { [b.name]: N }, failed: 0 });

      await b.web.setHealthy(false);
      await routedTo(namespace, [], "local");
      const none = await client.countHttp(ZONE_B.address, nodePort, 10);
      console.log(`externalTrafficPolicy Local, ${b.name} failing: ${JSON.stringify(none)}`);
      expect(none).toEqual({ byPod: {}, failed: 10 });
    } finally {
      await client.stop();
      await b.web.setHealthy(true);
    }
  });
});
