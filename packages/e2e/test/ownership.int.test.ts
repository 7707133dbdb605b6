/**
 * Issue 16 item 1 — no tenant can put endpoints behind a Service the SWH does not control (ADR 0014). The
 * controller and one agent run as processes from their bundles with the chart's RBAC; backends are real TCP
 * servers on pod addresses. Absence is always checked beside a positive control on the same pods (another SWH
 * gets its slices), and with a watch opened before the SWH exists, so "no slice" means "never a slice".
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type V1EndpointSlice,
  type V1Service,
  Watch,
} from "@kubernetes/client-node";
import {
  CONDITION_TYPES,
  GROUP,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  tcpProbe,
  VERSION,
} from "@swh/crd-types";
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Backend,
  hasEndpoint,
  installProduct,
  Product,
  readEndpoints,
  startTcpBackend,
} from "../src/index.js";

const NODE = "node-owner";
const PORT = 7000;
let cluster: TestCluster;
let product: Product;
const backends: Backend[] = [];
const stops: (() => void)[] = [];
let nextAddress = 10;

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE, zone: "zone-o" });
  product = new Product(cluster);
  await product.startController();
  await product.startAgent(NODE);
});

afterAll(async () => {
  for (const stop of stops) stop();
  await product?.stop();
  for (const b of backends) await b.close();
});

/** A healthy pod `name` on the test node labelled `app=<app>`, with a real TCP server on its address. */
async function aHealthyPod(namespace: string, name: string, app: string): Promise<void> {
  const address = `10.244.31.${nextAddress++}`;
  backends.push(await startTcpBackend(address, PORT));
  await createPod(cluster.kubeConfig, {
    name,
    namespace,
    node: NODE,
    ips: [address],
    labels: { app },
    containerPorts: [{ name: "svc", containerPort: PORT }],
  });
}

/** An SWH `name` selecting `app=<app>` on one port, probed over TCP every second. */
function anSwh(namespace: string, name: string, app: string): ServiceWithHealthchecks {
  return serviceWithHealthchecks(
    { name, namespace },
    {
      selector: { app },
      ports: [{ name: "svc", port: 80, targetPort: PORT }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [tcpProbe(PORT, { timeoutSeconds: 1 })],
      },
    },
  );
}

/**
 * Records every EndpointSlice our agents write for Service `service` in `namespace`, from now on (a watch:
 * a slice that exists for a moment is seen too).
 */
async function recordOurSlices(namespace: string, service: string): Promise<string[]> {
  const seen: string[] = [];
  const request = await new Watch(cluster.kubeConfig).watch(
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
    { labelSelector: `${LABEL_SERVICE_NAME}=${service},${LABEL_MANAGED_BY}=${MANAGED_BY}` },
    (type: string, obj: V1EndpointSlice) => {
      if (type === "ADDED" || type === "MODIFIED") seen.push(`${type} ${obj.metadata?.name}`);
    },
    () => {},
  );
  stops.push(() => request.abort());
  return seen;
}

async function readSwh(namespace: string, name: string): Promise<ServiceWithHealthchecks> {
  return (await cluster.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  })) as ServiceWithHealthchecks;
}

function condition(swh: ServiceWithHealthchecks, type: string) {
  return swh.status?.conditions?.find((c) => c.type === type);
}

/** Waits until `name`'s ServiceReady condition is False with `reason`; returns the SWH. */
function serviceReadyFalse(
  namespace: string,
  name: string,
  reason: string,
): Promise<ServiceWithHealthchecks> {
  return waitFor(`${namespace}/${name} ServiceReady=False ${reason}`, async () => {
    const swh = await readSwh(namespace, name);
    const c = condition(swh, CONDITION_TYPES.serviceReady);
    return c?.status === "False" && c.reason === reason && swh;
  });
}

function publishedReady(namespace: string, swh: string, pod: string): Promise<true> {
  return waitFor(`${swh} publishes ${pod} ready`, async () =>
    hasEndpoint(await readEndpoints(cluster.kubeConfig, namespace), swh, pod, true) ? (true as const) : false,
  );
}

/** The agent's swh_endpoints_withheld{reason} value. */
async function withheld(reason: string): Promise<number> {
  const text = (await product.agents.get(NODE)?.metrics()) ?? "";
  const match = new RegExp(`^swh_endpoints_withheld\\{reason="${reason}"\\} (\\d+)$`, "m").exec(text);
  return Number(match?.[1] ?? Number.NaN);
}

describe("a Service the SWH does not control gets no endpoints of ours", () => {
  it("a namespace's Service with a selector: the namesake SWH publishes nothing, its status says why", async () => {
    const namespace = await cluster.createNamespace("own-sel");
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const db = await core.createNamespacedService({
      namespace,
      body: { metadata: { name: "db" }, spec: { selector: { app: "real-db" }, ports: [{ port: 5432 }] } },
    });
    await aHealthyPod(namespace, "impostor-0", "impostor");
    const dbSlices = await recordOurSlices(namespace, "db");
    await cluster.apply([anSwh(namespace, "db", "impostor"), anSwh(namespace, "control", "impostor")], {
      namespace,
    });

    // Positive control: the same pod, probe and agent publish for an SWH that controls its Service.
    await publishedReady(namespace, "control", "impostor-0");
    expect(dbSlices).toEqual([]);
    const swh = await serviceReadyFalse(namespace, "db", "ServiceHasSelector");
    // The agent never sees db: it watches only Services with the controller's label (ADR 0025) and reads SWHs
    // from them (ADR 0032); the controller, which sees every Service, names the precise reason in the status
    // (above). The positive control was published after db was created, from the same pod, by the same agent.
    expect(dbSlices).toEqual([]);
    expect(condition(swh, CONDITION_TYPES.ready)).toMatchObject({
      status: "False",
      reason: "ServiceNotReady",
    });
    expect(condition(swh, CONDITION_TYPES.serviceReady)?.message).toContain("no endpoints are published");
    expect(swh.status?.endpoints?.total ?? 0).toBe(0);
    const after = await core.readNamespacedService({ name: "db", namespace });
    expect(after.metadata?.resourceVersion).toBe(db.metadata?.resourceVersion);
  });

  it("an administrator takes the Service away from a publishing SWH: the agent deletes its slices", async () => {
    const namespace = await cluster.createNamespace("own-take");
    await aHealthyPod(namespace, "web-0", "web");
    await cluster.apply([anSwh(namespace, "web", "web")], { namespace });
    await publishedReady(namespace, "web", "web-0");

    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const service = await core.readNamespacedService({ name: "web", namespace });
    const taken: V1Service = {
      ...service,
      metadata: { ...service.metadata, ownerReferences: [] },
      spec: { ...service.spec, selector: { app: "web" } },
    };
    await core.replaceNamespacedService({ name: "web", namespace, body: taken });

    await waitFor("the agent deleted web's slices", async () => {
      const rows = await readEndpoints(cluster.kubeConfig, namespace);
      return rows.every((r) => r.swh !== "web");
    });
    await serviceReadyFalse(namespace, "web", "ServiceHasSelector");
    // The Service still carries the label and the spec the controller published: the agent sees why it may not feed it.
    await waitFor("the agent withholds web", async () => (await withheld("ServiceHasSelector")) >= 1);
    const after = await core.readNamespacedService({ name: "web", namespace });
    expect(after.spec?.selector).toEqual({ app: "web" });
    expect(after.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it("an SWH named kubernetes in default: default/kubernetes is neither adopted nor fed", async () => {
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const before = await waitFor("default/kubernetes exists", () =>
      core.readNamespacedService({ name: "kubernetes", namespace: "default" }).catch(() => undefined),
    );
    await aHealthyPod("default", "hijack-0", "hijack");
    const kubernetesSlices = await recordOurSlices("default", "kubernetes");
    const swhs = [anSwh("default", "kubernetes", "hijack"), anSwh("default", "kube-control", "hijack")];
    try {
      await cluster.apply(swhs, { namespace: "default" });
      await publishedReady("default", "kube-control", "hijack-0");
      const unchanged = async () => {
        const after = await core.readNamespacedService({ name: "kubernetes", namespace: "default" });
        expect(after.metadata?.ownerReferences).toEqual(before.metadata?.ownerReferences);
        expect(after.spec).toEqual(before.spec);
      };
      expect(kubernetesSlices).toEqual([]);
      await unchanged();
      const swh = await serviceReadyFalse("default", "kubernetes", "ServiceReserved");
      expect(condition(swh, CONDITION_TYPES.ready)?.status).toBe("False");
      // No agent sees an SWH whose Service the controller does not control (ADR 0032): nothing to withhold.
      expect(kubernetesSlices).toEqual([]);
      await unchanged();
    } finally {
      // `default` is shared with the rest of the suite: leave it as it was.
      const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
      for (const s of swhs) {
        const name = s.metadata.name ?? "";
        await custom
          .deleteNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: "default",
            plural: PLURAL,
            name,
          })
          .catch(() => {});
      }
      await core
        .deleteNamespacedPod({ name: "hijack-0", namespace: "default", gracePeriodSeconds: 0 })
        .catch(() => {});
    }
  });
});

describe("adoption", () => {
  it("an ownerless, selector-less Service of the same name is adopted (Event) and gets the endpoints", async () => {
    const namespace = await cluster.createNamespace("own-adopt");
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const existing = await core.createNamespacedService({
      namespace,
      body: { metadata: { name: "cache" }, spec: { ports: [{ port: 6379 }] } },
    });
    await aHealthyPod(namespace, "cache-0", "cache");
    await cluster.apply([anSwh(namespace, "cache", "cache")], { namespace });

    await publishedReady(namespace, "cache", "cache-0");
    const swh = await readSwh(namespace, "cache");
    const adopted = await core.readNamespacedService({ name: "cache", namespace });
    expect(adopted.metadata?.uid).toBe(existing.metadata?.uid);
    expect(adopted.spec?.clusterIP).toBe(existing.spec?.clusterIP);
    expect(adopted.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "ServiceWithHealthchecks", uid: swh.metadata.uid, controller: true }),
    ]);
    await waitFor("ServiceAdopted Event", async () => {
      const list = await cluster.kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
      return list.items.some(
        (e) =>
          e.reason === "ServiceAdopted" &&
          e.regarding?.name === "cache" &&
          e.regarding.kind === "ServiceWithHealthchecks",
      );
    });
  });
});
