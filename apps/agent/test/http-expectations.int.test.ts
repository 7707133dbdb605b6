/**
 * HTTP expectations end to end: an SWH whose HTTP probe expects a body substring (issue 19), or the pod's own name
 * in a response header (ADR 0036), probed by a real agent against a real backend, and the verdict with its own
 * reason on the EndpointSlice the agent writes. A pod IP recycled for a new pod while the old workload still
 * answers on it must not publish the new pod as ready: the answer names the predecessor.
 */
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentKubeConfig,
  clients,
  installAgent,
  published,
  startAgent,
  startBackend,
} from "./support/harness.js";

let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installAgent(cluster);
});

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("HTTP body match", () => {
  it("takes a pod out with reason HTTPBody while its body lacks the expected text, and back when it has it", async () => {
    const namespace = await cluster.createNamespace("http-body");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node });
    const address = "10.244.98.5";
    const backend = await startBackend(address, 8080);
    cleanups.push(() => backend.close());
    backend.bodies.set("/healthz", '{"status":"UP"}');
    await createPod(cluster.kubeConfig, { name: "a", namespace, node, ips: [address], labels: { app: "x" } });
    await admin.createSwh(namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [
          {
            mode: "HTTP",
            timeoutSeconds: 1,
            failureThreshold: 1,
            http: { targetPort: 8080, path: "/healthz", body: { contains: '"UP"' } },
          },
        ],
      },
    });
    const agent = await startAgent((await agentKubeConfig(cluster)).kubeConfig, node);
    cleanups.push(() => agent.stop());
    const endpoint = async () => published(await admin.slices(namespace), "web", 8080, address);

    await waitFor("the pod published ready", async () => (await endpoint())?.ready);
    // Still 200: only the body says the application is down.
    backend.bodies.set("/healthz", '{"status":"DOWN"}');
    await waitFor(
      "the pod not ready with reason HTTPBody",
      async () => (await endpoint())?.reason === "HTTPBody",
    );
    expect(await endpoint()).toMatchObject({ ready: false, reason: "HTTPBody" });
    backend.bodies.set("/healthz", '{"status":"UP"}');
    await waitFor("the pod ready again", async () => (await endpoint())?.ready);
    expect((await endpoint())?.reason).toBeUndefined();
  });
});

describe("identity check", () => {
  it("a recycled pod IP answering for its predecessor keeps the new pod out (HTTPHeader) until it answers as itself", async () => {
    const namespace = await cluster.createNamespace("identity");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node });
    const address = "10.244.98.7";
    const backend = await startBackend(address, 8080);
    cleanups.push(() => backend.close());
    backend.headers.set("/healthz", { "X-Pod-Name": "old" });
    await createPod(cluster.kubeConfig, {
      name: "old",
      namespace,
      node,
      ips: [address],
      labels: { app: "x" },
    });
    await admin.createSwh(namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [
          {
            mode: "HTTP",
            timeoutSeconds: 1,
            failureThreshold: 1,
            http: {
              targetPort: 8080,
              path: "/healthz",
              responseHeaders: [{ name: "X-Pod-Name", value: "$(POD_NAME)" }],
            },
          },
        ],
      },
    });
    const agent = await startAgent((await agentKubeConfig(cluster)).kubeConfig, node);
    cleanups.push(() => agent.stop());
    const endpoint = async () => published(await admin.slices(namespace), "web", 8080, address);
    await waitFor("the old pod published ready", async () => (await endpoint())?.ready);

    // The old pod is gone, a new one gets its IP, and the old workload still answers there.
    await admin.core.deleteNamespacedPod({ namespace, name: "old", gracePeriodSeconds: 0 });
    await createPod(cluster.kubeConfig, {
      name: "new",
      namespace,
      node,
      ips: [address],
      labels: { app: "x" },
    });
    await waitFor(
      "the new pod not ready with reason HTTPHeader",
      async () => (await endpoint())?.reason === "HTTPHeader",
    );
    expect(await endpoint()).toMatchObject({ ready: false, reason: "HTTPHeader" });

    backend.headers.set("/healthz", { "X-Pod-Name": "new" });
    await waitFor("the new pod ready once it answers as itself", async () => (await endpoint())?.ready);
    expect((await endpoint())?.reason).toBeUndefined();
  });
});
