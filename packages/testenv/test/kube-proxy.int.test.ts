/**
 * startKubeProxy in both modes: from a selector-less Service and a hand-written EndpointSlice, kube-proxy programs
 * this network namespace so that requests to the ClusterIP reach the ready endpoints and never the not-ready one,
 * and its rules are gone after stop().
 */
import { execFileSync } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { CoreV1Api, DiscoveryV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createNode,
  type KubeProxy,
  startKubeProxy,
  type TestCluster,
  testCluster,
  waitFor,
} from "../src/index.ts";

const CLIENT = "10.244.250.1";
const PODS = [
  { name: "p-0", address: "10.244.40.10", ready: true },
  { name: "p-1", address: "10.244.40.11", ready: true },
  { name: "p-2", address: "10.244.40.12", ready: false },
];
let cluster: TestCluster;
let proxy: KubeProxy | undefined;
const servers: Server[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  for (const pod of PODS) {
    const server = createServer((_req, res) => res.end(pod.name));
    await new Promise<void>((resolve) => server.listen(8080, pod.address, resolve));
    servers.push(server);
  }
});

afterAll(async () => {
  await proxy?.stop();
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});

/** GET http://ip:port/ from CLIENT; the body is the answering pod's name. */
function whoAnswers(ip: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: ip, port, localAddress: CLIENT, agent: false, timeout: 2_000 }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** What kube-proxy left in this network namespace's ruleset: Service chains (iptables) or its table (nftables). */
function leftoverRules(mode: "iptables" | "nftables"): boolean {
  if (mode === "iptables") return execFileSync("iptables-save", { encoding: "utf8" }).includes("KUBE-SVC-");
  return execFileSync("nft", ["list", "tables"], { encoding: "utf8" }).includes("kube-proxy");
}

describe.each(["iptables", "nftables"] as const)("startKubeProxy (%s)", (mode) => {
  it("routes ClusterIP traffic to the ready endpoints of an EndpointSlice only, and cleans up on stop", async () => {
    const ns = await cluster.createNamespace("proxy");
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const service = await core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: "web" }, spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
    });
    const clusterIP = service.spec?.clusterIP ?? "";
    await cluster.kubeConfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
      namespace: ns,
      body: {
        metadata: { name: "web-1", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        endpoints: PODS.map((p) => ({ addresses: [p.address], conditions: { ready: p.ready } })),
      },
    });
    await createNode(cluster.kubeConfig, { name: `node-${ns}`, addresses: ["10.244.255.10"] });
    proxy = await startKubeProxy(cluster, { node: `node-${ns}`, mode });

    await waitFor(`${clusterIP}:80 answers`, () => whoAnswers(clusterIP, 80));
    const counts: Record<string, number> = {};
    for (let i = 0; i < 60; i++) {
      const pod = await whoAnswers(clusterIP, 80);
      counts[pod] = (counts[pod] ?? 0) + 1;
    }
    console.log(`kube-proxy (${mode}): 60 requests to ${clusterIP}:80 →`, counts);
    expect(Object.keys(counts).sort()).toEqual(["p-0", "p-1"]);
    // The rules say the same without sampling: the ready endpoints only, and nothing for a port it does not have.
    expect(proxy.routedEndpoints({ namespace: ns, name: "web", port: "http" })).toEqual([
      "10.244.40.10:8080",
      "10.244.40.11:8080",
    ]);
    expect(proxy.routedEndpoints({ namespace: ns, name: "web", port: "smtp" })).toEqual([]);

    expect(leftoverRules(mode)).toBe(true);
    await proxy.stop();
    proxy = undefined;
    expect(leftoverRules(mode)).toBe(false);
  });
});
