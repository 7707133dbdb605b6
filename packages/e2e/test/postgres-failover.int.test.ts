/**
 * The original product's PostgreSQL example end to end, judged by sessions as a database client opens them: a primary
 * and a streaming replica behind a read balancer (`SELECT 1`) and a write balancer (`SELECT NOT pg_is_in_recovery()`),
 * reached through each SWH's ClusterIP (routed by a real kube-proxy, iptables mode); then failover by promoting the
 * replica, and the old primary's pod coming back as a replica of the new one.
 */
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import {
  CONDITION_TYPES,
  GROUP,
  PLURAL,
  postgresCredentialsSecret,
  postgresProbe,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import {
  createNode,
  createPod,
  enableCredentialsNamespaces,
  type KubeProxy,
  type PostgresServer,
  startKubeProxy,
  startPostgres,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countPostgres,
  formatCount,
  hasEndpoint,
  installProduct,
  type PostgresLogin,
  Product,
  readEndpoints,
  type TrafficCount,
} from "../src/index.js";

let cluster: TestCluster;
let product: Product;
let proxy: KubeProxy | undefined;
// The databases' namespace, whose credentials Secrets an administrator let the agents read (ADR 0020).
let namespace: string;
const servers: PostgresServer[] = [];
const NODES = [
  { name: "pg-node-1", address: "10.244.254.21" },
  { name: "pg-node-2", address: "10.244.254.22" },
];
/** Sessions per measurement: a pod kube-proxy still routes to, one of two picked at random, is missed with p = 2^-40. */
const N = 40;
/** The probe's login is also the application's here; it owns its database, so it may create a table there. */
const LOGIN: PostgresLogin = { user: "prober", password: "pr0be-secret", database: "prober" };
/** What the application does through each balancer; the first column names the server that did it. */
const WRITE = "insert into visits (server) values (inet_server_addr()) returning server";
const READ = "select inet_server_addr(), (select count(*) from visits)";

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  for (const node of NODES)
    await createNode(cluster.kubeConfig, { name: node.name, zone: node.name, addresses: [node.address] });
  namespace = await cluster.createNamespace("e2e-pg");
  await enableCredentialsNamespaces(cluster, [namespace]);
  product = new Product(cluster, { agentArgs: [`--credentials-namespaces=${namespace}`] });
  await product.startController();
  for (const node of NODES) await product.startAgent(node.name);
  proxy = await startKubeProxy(cluster, { node: NODES[0]?.name ?? "", mode: "iptables" });
});

afterAll(async () => {
  await proxy?.stop();
  await product?.stop();
  for (const s of servers) await s.stop().catch(() => undefined);
});

describe("PostgreSQL primary + replica behind read and write balancers", () => {
  it("sessions through the write ClusterIP reach only the primary, through the read one both; both follow a failover", async () => {
    const primary = await startPostgres({
      host: "10.244.21.10",
      users: [{ name: LOGIN.user, password: LOGIN.password }],
    });
    servers.push(primary);
    await createTable(primary);
    const replica = await startPostgres({ host: "10.244.21.11", replicaOf: primary });
    servers.push(replica);
    const podByAddress = { [primary.host]: "pg-0", [replica.host]: "pg-1" };
    for (const [i, server] of [primary, replica].entries()) {
      await createPod(cluster.kubeConfig, {
        name: `pg-${i}`,
        namespace,
        node: NODES[i]?.name ?? "",
        ips: [server.host],
        labels: { app: "pg" },
        containerPorts: [{ name: "postgres", containerPort: server.port }],
      });
    }
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace,
      body: postgresCredentialsSecret({ name: "pg-probe" }, { user: LOGIN.user, password: LOGIN.password }),
    });
    const balancer = (name: string, query: string) =>
      serviceWithHealthchecks(
        { name, namespace },
        {
          selector: { app: "pg" },
          ports: [{ name: "postgres", port: 5432, targetPort: "postgres" }],
          healthcheck: {
            initialDelaySeconds: 0,
            // A 2 s timeout for PostgreSQL on a loaded runner; the timeout may not exceed the period.
            periodSeconds: 2,
            probes: [
              postgresProbe("postgres", {
                dbName: LOGIN.database,
                query,
                authSecretName: "pg-probe",
                timeoutSeconds: 2,
                failureThreshold: 2,
              }),
            ],
          },
        },
      );
    await cluster.apply(
      [balancer("pg-read", "SELECT 1"), balancer("pg-write", "SELECT NOT pg_is_in_recovery()")],
      { namespace },
    );
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const clusterIP = (name: string) =>
      waitFor(`Service ${name} has a ClusterIP`, async () => {
        return (await core.readNamespacedService({ name, namespace })).spec?.clusterIP;
      });
    const [readIP, writeIP] = [await clusterIP("pg-read"), await clusterIP("pg-write")];
    const writes = (n: number) => countPostgres(writeIP, 5432, n, LOGIN, WRITE, podByAddress);
    const reads = (n: number) => countPostgres(readIP, 5432, n, LOGIN, READ, podByAddress);
    /** Waits until kube-proxy routes both balancers as expected (a few sessions), then measures N sessions each. */
    const settle = async (what: string, write: string[], read: string[]) => {
      const agrees = (c: TrafficCount, pods: string[]) =>
        c.failed === 0 && Object.keys(c.byPod).sort().join() === pods.join();
      await waitFor(what, async () => agrees(await writes(10), write) && agrees(await reads(10), read), {
        timeoutMs: 60_000,
      });
      const measured = { write: await writes(N), read: await reads(N) };
      console.log(`${what}: write ${formatCount(measured.write)} | read ${formatCount(measured.read)}`);
      return measured;
    };

    await waitFor(
      "reads on both, writes on the primary only",
      async () => {
        const rows = await readEndpoints(cluster.kubeConfig, namespace);
        return (
          hasEndpoint(rows, "pg-read", "pg-0", true) &&
          hasEndpoint(rows, "pg-read", "pg-1", true) &&
          hasEndpoint(rows, "pg-write", "pg-0", true) &&
          hasEndpoint(rows, "pg-write", "pg-1", false)
        );
      },
      { timeoutMs: 60_000 },
    );
    const healthy = await settle("healthy", ["pg-0"], ["pg-0", "pg-1"]);
    // Every write landed on the primary and succeeded; reads reach both servers.
    expect(healthy.write).toMatchObject({ failed: 0, byPod: { "pg-0": N } });
    expect(healthy.read.failed).toBe(0);
    expect(Object.keys(healthy.read.byPod).sort()).toEqual(["pg-0", "pg-1"]);

    await primary.stop();
    await replica.promote();
    // Each balancer reaches its failure threshold on its own schedule: wait for the whole picture.
    await waitFor(
      "after failover: writes and reads go to the promoted replica only",
      async () => {
        const r = await readEndpoints(cluster.kubeConfig, namespace);
        return (
          hasEndpoint(r, "pg-write", "pg-1", true) &&
          hasEndpoint(r, "pg-write", "pg-0", false) &&
          hasEndpoint(r, "pg-read", "pg-1", true) &&
          hasEndpoint(r, "pg-read", "pg-0", false)
        );
      },
      { timeoutMs: 60_000 },
    );
    const failedOver = await settle("after failover", ["pg-1"], ["pg-1"]);
    expect(failedOver.write).toMatchObject({ failed: 0, byPod: { "pg-1": N } });
    expect(failedOver.read).toMatchObject({ failed: 0, byPod: { "pg-1": N } });

    // The old primary's pod comes back as a replica of the new primary: it answers sessions again, so only the
    // balancers keep writes off it.
    const rejoined = await startPostgres({ host: primary.host, replicaOf: replica });
    servers.push(rejoined);
    await waitFor(
      "the rejoined replica serves reads, not writes",
      async () => {
        const r = await readEndpoints(cluster.kubeConfig, namespace);
        return hasEndpoint(r, "pg-read", "pg-0", true) && hasEndpoint(r, "pg-write", "pg-0", false);
      },
      { timeoutMs: 60_000 },
    );
    const afterRejoin = await settle("old primary rejoined as a replica", ["pg-1"], ["pg-0", "pg-1"]);
    expect(afterRejoin.write).toMatchObject({ failed: 0, byPod: { "pg-1": N } });
    expect(afterRejoin.read.failed).toBe(0);
    expect(Object.keys(afterRejoin.read.byPod).sort()).toEqual(["pg-0", "pg-1"]);
    // The check has teeth: the rejoined server refuses writes, so a write balancer that routed to it would fail.
    const direct = await countPostgres(rejoined.host, rejoined.port, 1, LOGIN, WRITE, podByAddress);
    expect(direct.failures).toEqual(["cannot execute INSERT in a read-only transaction"]);
  });

  it("fails a PostgreSQL probe in a namespace nobody enabled with CredentialsNotPermitted, in the SWH status", async () => {
    const other = await cluster.createNamespace("e2e-pg-off");
    await createPod(cluster.kubeConfig, {
      name: "pg-0",
      namespace: other,
      node: NODES[0]?.name ?? "",
      ips: ["10.244.21.20"],
      labels: { app: "pg" },
      containerPorts: [{ name: "postgres", containerPort: 5432 }],
    });
    // A valid Secret: what stops the agent is the namespace, not the Secret.
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: other,
      body: postgresCredentialsSecret({ name: "pg-probe" }, { user: LOGIN.user, password: LOGIN.password }),
    });
    await cluster.apply(
      [
        serviceWithHealthchecks(
          { name: "pg", namespace: other },
          {
            selector: { app: "pg" },
            ports: [{ name: "postgres", port: 5432, targetPort: "postgres" }],
            healthcheck: {
              initialDelaySeconds: 0,
              periodSeconds: 1,
              probes: [postgresProbe("postgres", { dbName: "prober", authSecretName: "pg-probe" })],
            },
          },
        ),
      ],
      { namespace: other },
    );
    const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    const status = await waitFor("ProbesValid=False naming CredentialsNotPermitted", async () => {
      const swh = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: other,
        name: "pg",
      })) as ServiceWithHealthchecks;
      const condition = swh.status?.conditions?.find((c) => c.type === CONDITION_TYPES.probesValid);
      return condition?.status === "False" && condition.message.includes("CredentialsNotPermitted")
        ? swh.status
        : undefined;
    });
    expect(status?.endpoints?.list?.[0]?.ports?.[0]).toMatchObject({
      ready: false,
      reason: "CredentialsNotPermitted",
    });
    expect(status?.endpoints?.list?.[0]?.ports?.[0]?.message).toContain(`namespace ${other}`);
  });
});

/** The application's table, made on the primary (the replica receives it by streaming). */
async function createTable(primary: PostgresServer): Promise<void> {
  const client = new pg.Client({ host: primary.host, port: primary.port, ...LOGIN, ssl: false });
  await client.connect();
  try {
    await client.query("create table visits (server inet not null, at timestamptz not null default now())");
  } finally {
    await client.end();
  }
}
