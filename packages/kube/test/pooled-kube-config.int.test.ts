import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { type TestCluster, testCluster } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsonClient, PooledKubeConfig } from "../src/index.js";

let cluster: TestCluster;
let proxy: Server;
let connections = 0;
const open = new Set<Socket>();

/** A TCP relay to the API server that counts the connections clients open (TLS passes through untouched). */
async function startCountingProxy(target: URL): Promise<Server> {
  const server = createServer((client) => {
    connections++;
    open.add(client);
    client.on("close", () => open.delete(client));
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

/** The admin identity of the test cluster, reaching the server through the proxy. */
function throughProxy<T extends KubeConfig>(kc: T): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("no current cluster");
  kc.loadFromOptions({
    clusters: [{ ...cluster, server: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}` }],
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return kc;
}

function copyOfAdmin<T extends KubeConfig>(kc: T): T {
  kc.loadFromString(cluster.kubeConfig.exportConfig());
  return throughProxy(kc);
}

/** Connections opened while `requests` sequential list calls run. */
async function connectionsFor(kc: KubeConfig, requests: number): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const before = connections;
  for (let i = 0; i < requests; i++) await core.listNamespace({ limit: 1 });
  return connections - before;
}

beforeAll(async () => {
  cluster = await testCluster();
  const server = cluster.kubeConfig.getCurrentCluster()?.server ?? "";
  proxy = await startCountingProxy(new URL(server));
});

afterAll(() => {
  for (const socket of open) socket.destroy();
  proxy.close();
});

describe("PooledKubeConfig against a real API server", () => {
  it("sends sequential requests over one connection, where a plain KubeConfig opens one per request", async () => {
    expect(await connectionsFor(copyOfAdmin(new KubeConfig()), 5)).toBe(5);
    expect(await connectionsFor(copyOfAdmin(new PooledKubeConfig()), 5)).toBe(1);
  });

  it("opens a new pool once the old one is older than maxAgeMs, so rotated certificates are read again", async () => {
    let now = 0;
    const kc = copyOfAdmin(new PooledKubeConfig({ maxAgeMs: 60_000, now: () => now }));
    expect(await connectionsFor(kc, 3)).toBe(1);
    now = 59_999;
    expect(await connectionsFor(kc, 2)).toBe(0);
    now = 60_000;
    expect(await connectionsFor(kc, 3)).toBe(1);
  });

  it("lets the JSON client share the pool with the generated clients", async () => {
    const kc = copyOfAdmin(new PooledKubeConfig());
    const json = createJsonClient(kc);
    const before = connections;
    for (let i = 0; i < 3; i++) {
      await kc.makeApiClient(CoreV1Api).listNamespace({ limit: 1 });
      await json.request({ method: "GET", path: "/api/v1/namespaces", query: { limit: "1" } });
    }
    expect(connections - before).toBe(1);
  });
});
