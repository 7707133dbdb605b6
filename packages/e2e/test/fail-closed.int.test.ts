/**
 * Fail closed and isolation of bad objects (issue 16, rows 3 and 5; ADR 0015), end to end: the controller and
 * the agents run as processes from their bundles with the chart's RBAC against the real control plane.
 * - A probe whose named targetPort is no container port of the pod cannot run: the pod is published not ready
 *   on every port, with `PortNotFound` on the slice, in the SWH status and in an Event.
 * - A stored SWH whose shape no longer fits the schema (written while the CRD's schema was relaxed) stops
 *   nothing else: a new pod of another SWH on the same node is published, also by an agent started after the
 *   bad object exists, the controller serves the other SWH, and the bad one is told which field is wrong.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  EventsV1Api,
  type V1EndpointSlice,
} from "@kubernetes/client-node";
import {
  ANNOTATION_ENDPOINT_REASONS,
  crdManifest,
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
import { type Backend, installProduct, Product, startTcpBackend } from "../src/index.js";

const NODE = "node-fc";
const LATE_NODE = "node-fc-late";
let cluster: TestCluster;
let product: Product;
const backends: Backend[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  for (const name of [NODE, LATE_NODE]) {
    await createNode(cluster.kubeConfig, { name, zone: "zone-a" }).catch(() => {});
  }
  product = new Product(cluster);
  await product.startController();
  await product.startAgent(NODE);
});

afterAll(async () => {
  await product?.stop();
  for (const b of backends) await b.close();
});

/** A pod on `node` with SMTP (2525) and HTTP (8080) container ports; its SMTP port really listens. */
async function mailPod(namespace: string, name: string, node: string, address: string): Promise<void> {
  backends.push(await startTcpBackend(address, 2525));
  backends.push(await startTcpBackend(address, 8080));
  await createPod(cluster.kubeConfig, {
    name,
    namespace,
    node,
    ips: [address],
    labels: { app: "mail" },
    containerPorts: [
      { name: "smtp", containerPort: 2525 },
      { name: "http", containerPort: 8080 },
    ],
  });
}

/** An SWH over the mail pods with ports smtp (25 → 2525) and http (80 → 8080), probed by `probe`. */
function mailSwh(
  namespace: string,
  name: string,
  probe: ReturnType<typeof tcpProbe>,
): ServiceWithHealthchecks {
  return serviceWithHealthchecks(
    { name, namespace },
    {
      selector: { app: "mail" },
      ports: [
        { name: "smtp", port: 25, targetPort: 2525 },
        { name: "http", port: 80, targetPort: 8080 },
      ],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [probe] },
    },
  );
}

async function slicesOf(namespace: string, swh: string): Promise<V1EndpointSlice[]> {
  const api = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  const list = await api.listNamespacedEndpointSlice({
    namespace,
    labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_SERVICE_NAME}=${swh}`,
  });
  return list.items;
}

/** `port address ready reason` for every endpoint of the SWH's slices, sorted. */
async function published(namespace: string, swh: string): Promise<string[]> {
  const rows: string[] = [];
  for (const slice of await slicesOf(namespace, swh)) {
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

/** `reason: note` of the Events about `name` in `namespace`. */
async function eventsAbout(namespace: string, name: string): Promise<string[]> {
  const api = cluster.kubeConfig.makeApiClient(EventsV1Api);
  const list = await api.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.regarding?.name === name).map((e) => `${e.reason}: ${e.note ?? ""}`);
}

describe("a probe that cannot run fails closed", () => {
  it("publishes the pod not ready on every port with PortNotFound, in the slice, the status and an Event", async () => {
    const namespace = await cluster.createNamespace("fc");
    await mailPod(namespace, "mail-0", NODE, "10.244.21.10");
    await cluster.apply(
      [
        // The same probe spelled right: proves the pod and the agent work, so only the typo can fail the other.
        mailSwh(namespace, "mail-ok", tcpProbe("smtp", { timeoutSeconds: 1 })),
        mailSwh(namespace, "mail", tcpProbe("smtpp", { timeoutSeconds: 1 })),
      ],
      { namespace },
    );
    const ok = ["http 10.244.21.10 ready -", "smtp 10.244.21.10 ready -"];
    await waitFor("mail-ok published ready", async () => {
      const rows = await published(namespace, "mail-ok");
      return JSON.stringify(rows) === JSON.stringify(ok) ? rows : undefined;
    });
    const rows = await waitFor("mail published on both ports", async () => {
      const rows = await published(namespace, "mail");
      return rows.length === 2 ? rows : undefined;
    });
    expect(rows).toEqual([
      "http 10.244.21.10 not-ready PortNotFound",
      "smtp 10.244.21.10 not-ready PortNotFound",
    ]);

    const status = await waitFor("status of mail lists the reason", async () => {
      const status = (await readSwh(namespace, "mail")).status;
      return status?.endpoints?.list?.[0]?.ports.length === 2 ? status : undefined;
    });
    expect(status.endpoints?.list[0]?.ports.map((p) => `${p.name} ${p.ready} ${p.reason}`)).toEqual([
      "http false PortNotFound",
      "smtp false PortNotFound",
    ]);
    const probesValid = status.conditions?.find((c) => c.type === "ProbesValid");
    expect(probesValid).toMatchObject({ status: "False", reason: "InvalidProbes" });
    expect(probesValid?.message).toContain("TCP :smtpp: PortNotFound");

    const events = await waitFor("a ProbeCannotRun Event on mail", async () => {
      const events = await eventsAbout(namespace, "mail");
      return events.some((e) => e.startsWith("ProbeCannotRun: ")) ? events : undefined;
    });
    expect(events.find((e) => e.startsWith("ProbeCannotRun: "))).toContain(
      'spec.healthcheck.probes[0].tcp.targetPort: probe targetPort "smtpp" is not a container port',
    );
  });
});

describe("a malformed stored SWH stops nothing else", () => {
  it("publishes the other SWH's new pods, serves it, and tells the bad one which field is wrong", async () => {
    const namespace = await cluster.createNamespace("fc");
    const broken = {
      ...mailSwh(namespace, "broken", tcpProbe(2525)),
      spec: {
        selector: { app: "mail" },
        ports: "smtp",
        healthcheck: { periodSeconds: 1, probes: [{ mode: "TCP", tcp: { targetPort: 2525 } }] },
      },
    };
    await withRelaxedSchema(() => cluster.apply([broken], { namespace }));
    expect((await readSwh(namespace, "broken")).spec.ports).toBe("smtp");

    // A new pod, selected by both, of another SWH on the same node: its agent was running all along.
    await cluster.apply([mailSwh(namespace, "good", tcpProbe(2525, { timeoutSeconds: 1 }))], { namespace });
    await mailPod(namespace, "mail-1", NODE, "10.244.22.10");
    const sameNode = ["http 10.244.22.10 ready -", "smtp 10.244.22.10 ready -"];
    await waitFor("good's new pod on the same node published ready", async () => {
      const rows = await published(namespace, "good");
      return JSON.stringify(rows) === JSON.stringify(sameNode) ? rows : undefined;
    });

    // And a pod on a node whose agent starts while the bad object exists.
    await mailPod(namespace, "mail-2", LATE_NODE, "10.244.22.11");
    await product.startAgent(LATE_NODE);
    const bothNodes = [
      "http 10.244.22.10 ready -",
      "http 10.244.22.11 ready -",
      "smtp 10.244.22.10 ready -",
      "smtp 10.244.22.11 ready -",
    ];
    await waitFor("good's pod on the late node published ready", async () => {
      const rows = await published(namespace, "good");
      return JSON.stringify(rows) === JSON.stringify(bothNodes) ? rows : undefined;
    });

    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const service = await core.readNamespacedService({ name: "good", namespace });
    expect(service.spec?.ports?.map((p) => p.port)).toEqual([25, 80]);
    await waitFor("status of good counts 2/2 per port", async () => {
      const ports = (await readSwh(namespace, "good")).status?.ports ?? [];
      return ports.length === 2 && ports.every((p) => p.readyEndpoints === 2 && p.totalEndpoints === 2);
    });

    const ready = await waitFor("broken has an InvalidSpec condition", async () => {
      const conditions = (await readSwh(namespace, "broken")).status?.conditions ?? [];
      return conditions.find((c) => c.type === "Ready" && c.reason === "InvalidSpec");
    });
    expect(ready.status).toBe("False");
    expect(ready.message).toMatch(/^spec\.ports: must be of type array/);
    // The controller says it, as a Warning Event too. No agent sees the SWH at all: the controller publishes a spec
    // to the agents only on the SWH's Service (ADR 0032), and writes no Service for a spec it cannot read.
    const events = await waitFor("the controller's InvalidSpec Event on broken", async () => {
      const events = await eventsAbout(namespace, "broken");
      return events.some((e) => e.startsWith("InvalidSpec: ")) ? events : undefined;
    });
    expect(events).toContainEqual(expect.stringMatching(/^InvalidSpec: spec\.ports: must be of type array/));
    expect(await slicesOf(namespace, "broken")).toEqual([]);
    expect(
      await core.readNamespacedService({ name: "broken", namespace }).catch(() => undefined),
    ).toBeUndefined();

    const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name: "broken",
    });
  });
});

/**
 * Runs `write` while the CRD stores any `spec` (as an older schema might have), then restores the real CRD and
 * waits until the API server rejects such a spec again.
 */
async function withRelaxedSchema(write: () => Promise<void>): Promise<void> {
  const relaxed = crdManifest() as {
    spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }[] };
  };
  for (const version of relaxed.spec.versions) {
    version.schema.openAPIV3Schema.properties.spec = {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    };
  }
  const probe = (dryRun: boolean) =>
    cluster.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: "default",
      plural: PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: "ServiceWithHealthchecks",
        metadata: { name: "schema-probe" },
        spec: { ports: "x" },
      },
      ...(dryRun ? { dryRun: "All" } : {}),
    });
  try {
    await cluster.apply([relaxed]);
    await waitFor("relaxed schema in effect", () => probe(true).then(() => true));
    await write();
  } finally {
    await cluster.apply([crdManifest()]);
    await waitFor("real schema in effect again", () =>
      probe(true).then(
        () => false,
        () => true,
      ),
    );
  }
}
