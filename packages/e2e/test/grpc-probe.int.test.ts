/**
 * gRPC health probes end to end (issue 19 item 1): the controller and an agent run as processes from their
 * bundles with the chart's RBAC against the real control plane; the pod is backed by a real gRPC server
 * (`@grpc/grpc-js` with the reference health service) on its pod address in the network namespace. When the
 * server reports NOT_SERVING for the probed service, the agent publishes the pod not ready with the reason
 * `GRPCNotServing` (slice and SWH status); when it reports SERVING again, the pod is ready again.
 */
import * as grpc from "@grpc/grpc-js";
import { CustomObjectsApi, DiscoveryV1Api } from "@kubernetes/client-node";
import {
  ANNOTATION_ENDPOINT_REASONS,
  GROUP,
  grpcProbe,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { HealthImplementation } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installProduct, Product } from "../src/index.js";

const NODE = "node-grpc";
const ADDRESS = "10.244.23.10";
const SERVICE = "shop.v1.Orders";
let cluster: TestCluster;
let product: Product;
let server: grpc.Server | undefined;

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE, zone: "zone-a" }).catch(() => {});
  product = new Product(cluster);
  await product.startController();
  await product.startAgent(NODE);
});

afterAll(async () => {
  await product?.stop();
  server?.forceShutdown();
});

/** A real gRPC server on the pod address whose health service reports `SERVICE` as SERVING. */
async function startOrdersServer(): Promise<HealthImplementation> {
  server = new grpc.Server();
  const health = new HealthImplementation({ "": "SERVING", [SERVICE]: "SERVING" });
  health.addToServer(server);
  await new Promise<number>((resolve, reject) =>
    server?.bindAsync(`${ADDRESS}:50051`, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
  return health;
}

/** `port address ready reason` for every endpoint of the SWH's slices, sorted. */
async function published(namespace: string, swh: string): Promise<string[]> {
  const api = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  const list = await api.listNamespacedEndpointSlice({
    namespace,
    labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_SERVICE_NAME}=${swh}`,
  });
  const rows: string[] = [];
  for (const slice of list.items) {
    const reasons = JSON.parse(slice.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS] ?? "{}");
    for (const endpoint of slice.endpoints ?? []) {
      for (const address of endpoint.addresses) {
        const ready = endpoint.conditions?.ready === true ? "ready" : "not-ready";
        rows.push(`${slice.ports?.[0]?.name} ${address} ${ready} ${reasons[address]?.reason ?? "-"}`);
      }
    }
  }
  return rows.sort();
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

const until = (namespace: string, expected: string[]) => async () => {
  const rows = await published(namespace, "orders");
  return JSON.stringify(rows) === JSON.stringify(expected) ? rows : undefined;
};

describe("a SWH with a gRPC health probe", () => {
  it("withdraws the pod while its health service reports NOT_SERVING, with the reason, and restores it after", async () => {
    const health = await startOrdersServer();
    const namespace = await cluster.createNamespace("grpc");
    await createPod(cluster.kubeConfig, {
      name: "orders-0",
      namespace,
      node: NODE,
      ips: [ADDRESS],
      labels: { app: "orders" },
      containerPorts: [{ name: "grpc", containerPort: 50051 }],
    });
    await cluster.apply(
      [
        serviceWithHealthchecks(
          { name: "orders", namespace },
          {
            selector: { app: "orders" },
            ports: [{ name: "grpc", port: 50051, targetPort: "grpc", appProtocol: "grpc" }],
            healthcheck: {
              initialDelaySeconds: 0,
              periodSeconds: 1,
              probes: [grpcProbe("grpc", { service: SERVICE, timeoutSeconds: 1, failureThreshold: 2 })],
            },
          },
        ),
      ],
      { namespace },
    );
    await waitFor("orders-0 published ready", until(namespace, [`grpc ${ADDRESS} ready -`]));

    health.setStatus(SERVICE, "NOT_SERVING");
    await waitFor(
      "orders-0 withdrawn with GRPCNotServing",
      until(namespace, [`grpc ${ADDRESS} not-ready GRPCNotServing`]),
    );
    const status = await waitFor("status of orders names the reason", async () => {
      const s = (await readSwh(namespace, "orders")).status;
      return s?.endpoints?.list?.[0]?.ports[0]?.reason === "GRPCNotServing" ? s : undefined;
    });
    expect(status.endpoints?.list[0]?.ports[0]).toMatchObject({
      name: "grpc",
      ready: false,
      message: "NOT_SERVING",
    });
    expect(status.readySummary).toBe("0/1");

    health.setStatus(SERVICE, "SERVING");
    await waitFor("orders-0 ready again", until(namespace, [`grpc ${ADDRESS} ready -`]));
  });
});
