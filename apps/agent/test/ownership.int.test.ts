/**
 * Fail static for the ownership rule (ADR 0014): the agent withholds endpoints when a Service is gone, so a
 * Service cache that cannot be refreshed must never look like "gone". The agent runs in-process as its own
 * ServiceAccount bound to a copy of the chart's agent RBAC, whose `services` rule the test revokes.
 */
import { readFileSync } from "node:fs";
import { RbacAuthorizationV1Api, type V1EndpointSlice, Watch } from "@kubernetes/client-node";
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clients,
  INSTALL_NAMESPACE,
  installAgent,
  metricValue,
  published,
  startAgent,
  startBackend,
} from "./support/harness.js";

const ACCOUNT = "swh-agent-failstatic";
let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installAgent(cluster);
  // The chart's agent RBAC under another name, so that revoking a rule touches no other test.
  const rbac = readFileSync(new URL("../../../deploy/manifests/rbac-agent.yaml", import.meta.url), "utf8");
  await cluster.apply(rbac.replaceAll(/name: swh-agent$/gm, `name: ${ACCOUNT}`));
});

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  const rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.deleteClusterRoleBinding({ name: ACCOUNT }).catch(() => {});
  await rbac.deleteClusterRole({ name: ACCOUNT }).catch(() => {});
});

describe("the Service cache fails static", () => {
  it("an agent that can no longer list Services keeps publishing and updating the slices it has", async () => {
    const namespace = await cluster.createNamespace("own-static");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node });
    const address = "10.244.97.5";
    const backend = await startBackend(address, 8080);
    cleanups.push(() => backend.close());
    await createPod(cluster.kubeConfig, { name: "a", namespace, node, ips: [address], labels: { app: "x" } });
    await admin.createSwh(namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [{ mode: "HTTP", timeoutSeconds: 1, http: { targetPort: 8080, path: "/healthz" } }],
      },
    });
    const { kubeConfig } = await cluster.serviceAccountKubeConfig(INSTALL_NAMESPACE, ACCOUNT);
    const agent = await startAgent(kubeConfig, node);
    cleanups.push(() => agent.stop());
    await waitFor(
      "a published ready",
      async () => published(await admin.slices(namespace), "web", 8080, address)?.ready,
    );

    const deleted: string[] = [];
    const watch = await new Watch(cluster.kubeConfig).watch(
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      {},
      (type: string, slice: V1EndpointSlice) => {
        if (type === "DELETED") deleted.push(slice.metadata?.name ?? "");
      },
      () => {},
    );
    cleanups.push(async () => watch.abort());

    // Other test files' SWHs in the same cluster may be withheld already: what counts is that this adds none.
    const withheldBefore = await metricValue(agent.registry, "swh_endpoints_withheld");
    // Revoke the agent's Service permission, then break every watch: the Service informer cannot list again.
    const rbac = cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = await rbac.readClusterRole({ name: ACCOUNT });
    await rbac.replaceClusterRole({
      name: ACCOUNT,
      body: { ...role, rules: (role.rules ?? []).filter((r) => !r.resources?.includes("services")) },
    });
    await cluster.restartApiServer();
    await waitFor("the Service informer failing with 403", () =>
      agent.logs.some((l) => l.includes('"informer":"services"') && l.includes('"status":403')),
    );

    // A probe verdict changes: the agent reconciles "web" with the Service cache it had, and writes the change.
    backend.status.set("/healthz", 503);
    await waitFor(
      "a published not ready with its reason",
      async () => published(await admin.slices(namespace), "web", 8080, address)?.reason === "HTTPStatus",
    );
    backend.status.set("/healthz", 200);
    await waitFor(
      "a ready again",
      async () => published(await admin.slices(namespace), "web", 8080, address)?.ready,
    );

    expect(deleted).toEqual([]);
    expect(
      await metricValue(agent.registry, "swh_watch_restarts_total", { informer: "services" }),
    ).toBeGreaterThan(0);
    expect(await metricValue(agent.registry, "swh_endpoints_withheld")).toBe(withheldBefore);
  });
});
