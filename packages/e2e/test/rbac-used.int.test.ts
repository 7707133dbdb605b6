/**
 * RBAC proven by use (ADR 0021): the controller and two agents run as processes under the chart's RBAC through
 * a scenario that reaches every code path calling the API, on a control plane that audits the install
 * namespace's ServiceAccounts. No request of an app may be refused (a missing rule), and every permission the
 * chart grants an app must have been used (an unused rule), except the few listed below with the reason.
 */
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { GROUP, PLURAL, READINESS_GATE_PREFIX, VERSION } from "@swh/crd-types";
import {
  type ControlPlane,
  clusterFromInfo,
  createPod,
  deleteNode,
  enableCredentialsNamespaces,
  forceDeletePod,
  parseManifests,
  readAuditLog,
  renderChart,
  startControlPlane,
  type TestCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMailWorld,
  grantedPermissions,
  hasEndpoint,
  INSTALL_NAMESPACE,
  installProduct,
  type MailPod,
  mailBalancers,
  measuredUse,
  Product,
  readEndpoints,
  unusedPermissions,
} from "../src/index.js";

/** Permissions granted but not used by this scenario, with the reason each one is needed anyway. */
const UNREACHED: Record<string, Record<string, string>> = {
  "swh-controller": {},
  "swh-agent": {},
};

let controlPlane: ControlPlane;
let cluster: TestCluster;
let product: Product;
let namespace: string;
let pods: MailPod[] = [];

beforeAll(async () => {
  // Its own control plane: the shared one does not audit.
  controlPlane = await startControlPlane({
    controllerManager: false,
    auditLog: { serviceAccountNamespaces: [INSTALL_NAMESPACE] },
  });
  cluster = clusterFromInfo(controlPlane);
  await installProduct(cluster);
  namespace = await cluster.createNamespace("rbac");
  await enableCredentialsNamespaces(cluster, [namespace]);
  product = new Product(cluster, {
    controllerArgs: ["--node-not-ready-grace=10s"],
    agentArgs: [`--credentials-namespaces=${namespace}`],
  });
  await product.startController();
}, 180_000);

afterAll(async () => {
  await product?.stop();
  for (const p of pods) await Promise.all([p.web.close(), p.smtp.close()]);
  await controlPlane?.stop();
});

async function allWeb(ready: boolean): Promise<void> {
  await waitFor(`every web endpoint ${ready ? "ready" : "not ready"}`, async () => {
    const rows = await readEndpoints(cluster.kubeConfig, namespace);
    return pods.every((p) => hasEndpoint(rows, "web", p.name, ready));
  });
}

async function webStatusReady(ready: number): Promise<void> {
  const api = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  await waitFor(`status of web counts ${ready} ready`, async () => {
    const swh = (await api.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name: "web",
    })) as { status?: { ports?: { readyEndpoints?: number }[] } };
    return swh.status?.ports?.[0]?.readyEndpoints === ready;
  });
}

describe("the chart's RBAC, measured", () => {
  it("grants each app exactly the permissions its code uses", async () => {
    pods = await createMailWorld(cluster, namespace, 31);
    for (const p of pods) await product.startAgent(p.node);
    await allWeb(true);
    await webStatusReady(2);

    // A pod waiting on web's readiness gate (ADR 0038): its agent patches the pod's status (nothing answers at
    // its address, so the gate is False; a write all the same).
    const gate = `${READINESS_GATE_PREFIX}web`;
    const [gateNode] = pods as [MailPod];
    await createPod(cluster.kubeConfig, {
      name: "gated",
      namespace,
      node: gateNode.node,
      ips: ["10.244.31.40"],
      labels: { app: "mail" },
      readinessGates: [gate],
    });
    await waitFor("the gated pod's condition", async () => {
      const pod = await cluster.kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedPodStatus({ name: "gated", namespace });
      return pod.status?.conditions?.some((c) => c.type === gate && c.status === "False");
    });

    // Readiness flips twice the same way: Events are created, then their series patched (agents and controller).
    for (let round = 0; round < 2; round++) {
      for (const p of pods) await p.web.setHealthy(false);
      await allWeb(false);
      await webStatusReady(0);
      for (const p of pods) await p.web.setHealthy(true);
      await allWeb(true);
      await webStatusReady(2);
    }

    // A second port: the controller replaces the Service, the agents rewrite their slices.
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const [web] = mailBalancers(namespace);
    web?.spec.ports?.push({ name: "alt", port: 8080, targetPort: "http" });
    await cluster.apply(web ? [web] : [], { namespace });
    await waitFor("Service web has two ports", async () => {
      const service = await core.readNamespacedService({ name: "web", namespace });
      return service.spec?.ports?.length === 2;
    });

    // /metrics: each app reviews the scraper's token (TokenReview + SubjectAccessReview).
    for (const app of [...product.controllers.values(), ...product.agents.values()]) await app.metrics();

    // An agent restarted: its heartbeat finds its Lease and replaces it (a renewal, sooner than the 10 s period).
    const [first, second] = pods as [MailPod, MailPod];
    await product.agents.get(first.node)?.stop();
    await product.startAgent(first.node);

    // A pod gone: node A's agent deletes the slices it left empty.
    await forceDeletePod(cluster.kubeConfig, namespace, first.name);
    await waitFor("node A's endpoints removed", async () =>
      (await readEndpoints(cluster.kubeConfig, namespace)).every((r) => r.pod !== first.name),
    );

    // A node gone (its agent stopped with it): the controller reads the Node, then deletes its slices.
    await product.agents.get(second.node)?.stop();
    await deleteNode(cluster.kubeConfig, second.node);
    await waitFor("the deleted node's slices removed", async () =>
      (await readEndpoints(cluster.kubeConfig, namespace)).every((r) => r.pod !== second.name),
    );
    await product.stop();

    const events = readAuditLog(controlPlane.auditLogPath ?? "");
    const objects = parseManifests(
      renderChart({ set: [`agent.credentialsNamespaces={${namespace}}`] }),
    ) as Parameters<typeof grantedPermissions>[0];
    const report: Record<string, { refused: string[]; unused: string[] }> = {};
    for (const app of ["swh-controller", "swh-agent"]) {
      const use = measuredUse(events, `system:serviceaccount:${INSTALL_NAMESPACE}:${app}`);
      const granted = grantedPermissions(objects, INSTALL_NAMESPACE, app);
      report[app] = { refused: use.refused, unused: unusedPermissions(granted, use.used, UNREACHED[app]) };
    }
    expect(report).toEqual({
      "swh-controller": { refused: [], unused: [] },
      "swh-agent": { refused: [], unused: [] },
    });
  }, 300_000);
});
