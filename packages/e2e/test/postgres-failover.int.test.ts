/**
 * The original product's PostgreSQL example end to end: a primary and a streaming replica behind a read balancer
 * (`SELECT 1`) and a write balancer (`SELECT NOT pg_is_in_recovery()`), then failover by promoting the replica.
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
  type PostgresServer,
  startPostgres,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasEndpoint, installProduct, Product, readEndpoints } from "../src/index.js";

let cluster: TestCluster;
let product: Product;
// The databases' namespace, whose credentials Secrets an administrator let the agents read (ADR 0020).
let namespace: string;
const servers: PostgresServer[] = [];
const NODES = ["pg-node-1", "pg-node-2"];

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  for (const name of NODES) await createNode(cluster.kubeConfig, { name, zone: name });
  namespace = await cluster.createNamespace("e2e-pg");
  await enableCredentialsNamespaces(cluster, [namespace]);
  product = new Product(cluster, { agentArgs: [`--credentials-namespaces=${namespace}`] });
  await product.startController();
  for (const name of NODES) await product.startAgent(name);
});

afterAll(async () => {
  await product?.stop();
  for (const s of servers) await s.stop().catch(() => undefined);
});

describe("PostgreSQL primary + replica behind read and write balancers", () => {
  it("publishes both for reads, only the primary for writes, and follows a failover", async () => {
    const primary = await startPostgres({
      host: "10.244.21.10",
      users: [{ name: "prober", password: "pr0be-secret" }],
    });
    servers.push(primary);
    const replica = await startPostgres({ host: "10.244.21.11", replicaOf: primary });
    servers.push(replica);
    for (const [i, server] of [primary, replica].entries()) {
      await createPod(cluster.kubeConfig, {
        name: `pg-${i}`,
        namespace,
        node: NODES[i] ?? "",
        ips: [server.host],
        labels: { app: "pg" },
        containerPorts: [{ name: "postgres", containerPort: server.port }],
      });
    }
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace,
      body: postgresCredentialsSecret({ name: "pg-probe" }, { user: "prober", password: "pr0be-secret" }),
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
                dbName: "prober",
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

    await primary.stop();
    await replica.promote();
    // Each balancer reaches its failure threshold on its own schedule: wait for the whole picture.
    const rows = await waitFor(
      "after failover: writes and reads go to the promoted replica only",
      async () => {
        const r = await readEndpoints(cluster.kubeConfig, namespace);
        const settled =
          hasEndpoint(r, "pg-write", "pg-1", true) &&
          hasEndpoint(r, "pg-write", "pg-0", false) &&
          hasEndpoint(r, "pg-read", "pg-0", false);
        return settled ? r : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(hasEndpoint(rows, "pg-read", "pg-1", true)).toBe(true);
  });

  it("fails a PostgreSQL probe in a namespace nobody enabled with CredentialsNotPermitted, in the SWH status", async () => {
    const other = await cluster.createNamespace("e2e-pg-off");
    await createPod(cluster.kubeConfig, {
      name: "pg-0",
      namespace: other,
      node: NODES[0] ?? "",
      ips: ["10.244.21.20"],
      labels: { app: "pg" },
      containerPorts: [{ name: "postgres", containerPort: 5432 }],
    });
    // A valid Secret: what stops the agent is the namespace, not the Secret.
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: other,
      body: postgresCredentialsSecret({ name: "pg-probe" }, { user: "prober", password: "pr0be-secret" }),
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
