/**
 * Fail-open judged by traffic (ADR 0039): the controller and two agents run from their bundles under the chart's
 * RBAC; requests go to the SWH's ClusterIP through a real kube-proxy (iptables mode). Each pod's application still
 * serves while its health check reports a shared dependency down. With `failOpen`, a port whose every endpoint
 * fails keeps receiving traffic on all of them (and says so in status, an Event and a metric); an SWH without it
 * over the same pods black-holes; when one check recovers, traffic goes to that pod only.
 */
import { createServer, type Server } from "node:http";
import { CoreV1Api } from "@kubernetes/client-node";
import { CONDITION_TYPES, httpProbe, serviceWithHealthchecks } from "@swh/crd-types";
import {
  createNode,
  createPod,
  type KubeProxy,
  startKubeProxy,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countHttp, formatCount, installProduct, Product, readSwh } from "../src/index.js";

const NODES = [
  { name: "fail-open-a", address: "10.244.253.1" },
  { name: "fail-open-b", address: "10.244.253.2" },
];
/** Requests per measurement: a pod kube-proxy routes to misses all 60 of them with probability 2^-60. */
const N = 60;

let cluster: TestCluster;
let product: Product;
let proxy: KubeProxy | undefined;
const servers: Server[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  for (const node of NODES)
    await createNode(cluster.kubeConfig, { name: node.name, addresses: [node.address] });
  product = new Product(cluster);
  await product.startController();
  for (const node of NODES) await product.startAgent(node.name);
  proxy = await startKubeProxy(cluster, { node: NODES[0]?.name ?? "", mode: "iptables" });
});

afterAll(async () => {
  await proxy?.stop();
  await product?.stop();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

/** An application that serves every path with `x-pod`, and whose `/healthz` says whether its dependency is up. */
async function startApp(address: string, pod: string): Promise<{ address: string; dependencyUp: boolean }> {
  const app = { address, dependencyUp: true };
  const server = createServer((req, res) => {
    const status = req.url === "/healthz" && !app.dependencyUp ? 503 : 200;
    res.writeHead(status, { connection: "close", "x-pod": pod }).end(status === 200 ? "ok\n" : "db down\n");
  });
  await new Promise<void>((resolve) => server.listen(8080, address, resolve));
  servers.push(server);
  return app;
}

describe("fail-open through kube-proxy", () => {
  it("keeps a port whose every check fails serving on all pods, only with failOpen, and ends when a check recovers", async () => {
    const namespace = await cluster.createNamespace("fail-open");
    const apps = await Promise.all(
      NODES.map(async (node, i) => {
        const name = `shop-${i}`;
        const address = `10.244.70.${10 + i}`;
        const app = await startApp(address, name);
        await createPod(cluster.kubeConfig, {
          name,
          namespace,
          node: node.name,
          ips: [address],
          labels: { app: "shop" },
          containerPorts: [{ name: "http", containerPort: 8080 }],
        });
        return { name, app };
      }),
    );
    const spec = (failOpen: boolean) => ({
      selector: { app: "shop" },
      ports: [{ name: "http", port: 80, targetPort: "http" }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        ...(failOpen ? { failOpen: {} } : {}),
        probes: [httpProbe("http", { path: "/healthz", timeoutSeconds: 1, failureThreshold: 2 })],
      },
    });
    await cluster.apply(
      [
        serviceWithHealthchecks({ name: "open", namespace }, spec(true)),
        serviceWithHealthchecks({ name: "closed", namespace }, spec(false)),
      ],
      { namespace },
    );
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const clusterIP = (name: string) =>
      waitFor(`Service ${name} has a ClusterIP`, async () => {
        return (await core.readNamespacedService({ name, namespace })).spec?.clusterIP;
      });
    const openIP = await clusterIP("open");
    const routedTo = (name: string, pods: readonly { app: { address: string } }[]) => {
      const want = pods.map((p) => `${p.app.address}:8080`).sort();
      return waitFor(
        `kube-proxy routes ${namespace}/${name} to ${want.join(", ") || "nothing"}`,
        async () => {
          const routed = proxy?.routedEndpoints({ namespace, name, port: "http" }) ?? [];
          return routed.join(" ") === want.join(" ") || undefined;
        },
      );
    };
    const checksEnforced = async () =>
      (await readSwh(cluster.kubeConfig, namespace, "open")).status?.conditions?.find(
        (c) => c.type === CONDITION_TYPES.checksEnforced,
      );
    const [first, second] = apps as [(typeof apps)[0], (typeof apps)[0]];

    await routedTo("open", apps);
    await routedTo("closed", apps);
    expect(await checksEnforced()).toMatchObject({ status: "True", reason: "ChecksDecide" });

    // One pod's dependency fails: the other still passes, so the checks decide as usual.
    first.app.dependencyUp = false;
    await routedTo("open", [second]);
    await routedTo("closed", [second]);
    expect((await countHttp(openIP, 80, N)).byPod).toEqual({ [second.name]: N });

    // Both fail: without failOpen the port black-holes; with it, both pods keep serving.
    second.app.dependencyUp = false;
    await routedTo("closed", []);
    await routedTo("open", apps);
    const during = await countHttp(openIP, 80, N);
    console.log(`failing open, every check failing: ${formatCount(during)}`);
    expect(during.failed).toBe(0);
    expect(Object.keys(during.byPod).sort()).toEqual([first.name, second.name]);
    const condition = await waitFor("ChecksEnforced False", async () => {
      const c = await checksEnforced();
      return c?.status === "False" ? c : undefined;
    });
    expect(condition).toMatchObject({ reason: "FailingOpen" });
    expect(condition.message).toContain("http (0/2 passing)");
    // Each endpoint still shows its real failure.
    const status = (await readSwh(cluster.kubeConfig, namespace, "open")).status;
    expect(status?.endpoints?.list.map((e) => e.ports[0]?.reason)).toEqual(["HTTPStatus", "HTTPStatus"]);
    const events = await core.listNamespacedEvent({ namespace, fieldSelector: "involvedObject.name=open" });
    expect(events.items.some((e) => e.reason === "FailingOpen" && e.type === "Warning")).toBe(true);
    const controller = [...product.controllers.values()][0];
    const metrics = await waitFor("the fail-open gauge at 1", async () => {
      const text = (await controller?.metrics()) ?? "";
      return text.includes(`service="open"} 1`) ? text : undefined;
    });
    expect(metrics).toContain(`swh_service_fail_open_ports{namespace="${namespace}",service="open"} 1`);

    // One check recovers: failing open ends by itself and traffic goes to the passing pod only.
    first.app.dependencyUp = true;
    await routedTo("open", [first]);
    expect((await countHttp(openIP, 80, N)).byPod).toEqual({ [first.name]: N });
    await waitFor("ChecksEnforced True again", async () => (await checksEnforced())?.status === "True");
  });
});
