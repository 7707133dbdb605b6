/**
 * Restarts: of the agent (as the shipped executable, stopped with SIGTERM, then started again) and of the API
 * server. The slices are watched throughout; an agent restart must not write, and no endpoint may go not-ready.
 */
import { spawn } from "node:child_process";
import { type KubeConfig, type V1EndpointSlice, Watch } from "@kubernetes/client-node";
import type { ProbeSpec } from "@swh/crd-types";
import { ANNOTATION_SWH_SPEC } from "@swh/crd-types/internal";
import { createNode, createPod, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  agentKubeConfig,
  clients,
  INSTALL_NAMESPACE,
  installAgent,
  metricValue,
  published,
  startAgent,
  startBackend,
} from "./support/harness.js";

let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
let agentKc: { kubeConfig: KubeConfig; path: string };
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installAgent(cluster);
  agentKc = await agentKubeConfig(cluster);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const http = (path: string): ProbeSpec => ({
  mode: "HTTP",
  timeoutSeconds: 1,
  http: { targetPort: 8080, path },
});
const tcp: ProbeSpec = { mode: "TCP", timeoutSeconds: 1, tcp: { targetPort: 8080 } };

/** Records every change the API server reports for the EndpointSlices of `namespace`. */
async function watchSlices(namespace: string) {
  const seen: { type: string; slice: V1EndpointSlice }[] = [];
  const request = await new Watch(cluster.kubeConfig).watch(
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
    {
      resourceVersion:
        (await admin.discovery.listNamespacedEndpointSlice({ namespace })).metadata?.resourceVersion ?? "",
    },
    (type, slice: V1EndpointSlice) => seen.push({ type, slice }),
    () => {},
  );
  return { seen, stop: () => request.abort() };
}

/** Starts the bundled agent as a child process; resolves with a handle once it logged that it started. */
async function spawnAgent(node: string) {
  const child = spawn(
    process.execPath,
    [
      new URL("../dist/main.mjs", import.meta.url).pathname,
      "--kubeconfig",
      agentKc.path,
      "--metrics-bind-address=0",
      "--health-bind-address=127.0.0.1:0",
      "--log-level=debug",
    ],
    {
      env: { ...process.env, NODE_NAME: node, POD_NAMESPACE: INSTALL_NAMESPACE },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d) => {
    output += String(d);
  });
  child.stderr.on("data", (d) => {
    output += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    await exited;
  });
  await waitFor(
    "the agent process to start",
    () => output.includes('"msg":"agent started"') || child.exitCode !== null,
  );
  if (child.exitCode !== null) throw new Error(`agent exited early (${child.exitCode}):\n${output}`);
  return { child, exited, output: () => output };
}

describe("restarts", () => {
  it("an agent stopped with SIGTERM and started again writes nothing and never withdraws an endpoint", async () => {
    const namespace = await cluster.createNamespace("restart");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node, zone: "zone-r" });
    const [good, bad] = ["10.244.90.5", "10.244.90.6"];
    for (const ip of [good, bad]) {
      const backend = await startBackend(ip, 8080);
      backend.status.set("/strict", ip === bad ? 503 : 200);
      cleanups.push(() => backend.close());
    }
    await createPod(cluster.kubeConfig, { name: "good", namespace, node, ips: [good], labels: { app: "x" } });
    await createPod(cluster.kubeConfig, { name: "bad", namespace, node, ips: [bad], labels: { app: "x" } });
    const spec = (probes: ProbeSpec[]) => ({
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes },
    });
    // strict's TCP probe differs from lenient's (failureThreshold), so only the published reasons say that it
    // passes.
    await admin.createSwh(namespace, "strict", spec([{ ...tcp, failureThreshold: 4 }, http("/strict")]));
    await admin.createSwh(namespace, "lenient", spec([tcp]));

    const first = await spawnAgent(node);
    await waitFor("converged", async () => {
      const slices = await admin.slices(namespace);
      return (
        published(slices, "strict", 8080, good)?.ready &&
        published(slices, "strict", 8080, bad)?.reason === "HTTPStatus" &&
        published(slices, "lenient", 8080, good)?.ready &&
        published(slices, "lenient", 8080, bad)?.ready
      );
    });
    const before = await admin.slices(namespace);
    const watch = await watchSlices(namespace);
    cleanups.push(async () => watch.stop());

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("slices are left as they are");

    const second = await startAgent(agentKc.kubeConfig, node);
    cleanups.push(() => second.stop());
    // Six targets (two TCP configs and one HTTP probe, on two pods); let each run about three periods.
    await waitFor(
      "the restarted agent to probe every target three times",
      async () => (await metricValue(second.registry, "swh_probe_results_total")) >= 18,
    );
    await waitFor(
      "the restarted agent's queue to drain",
      async () => (await metricValue(second.registry, "swh_workqueue_depth")) === 0,
    );
    expect(await metricValue(second.registry, "swh_slice_writes_total")).toBe(0);
    expect(watch.seen).toEqual([]);
    const after = await admin.slices(namespace);
    expect(after.map((s) => [s.metadata?.name, s.metadata?.resourceVersion]).sort()).toEqual(
      before.map((s) => [s.metadata?.name, s.metadata?.resourceVersion]).sort(),
    );
  });

  it("an upgrade: Services without a published spec keep their slices, and when the spec comes nothing flaps", async () => {
    const namespace = await cluster.createNamespace("upgrade");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node });
    const ip = "10.244.92.5";
    const backend = await startBackend(ip, 8080);
    cleanups.push(() => backend.close());
    await createPod(cluster.kubeConfig, { name: "a", namespace, node, ips: [ip], labels: { app: "x" } });
    await admin.createSwh(namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http("/healthz")] },
    });
    const first = await startAgent(agentKc.kubeConfig, node);
    await waitFor("a ready", async () => published(await admin.slices(namespace), "web", 8080, ip)?.ready);
    await first.stop();

    // The Service as an older controller wrote it: no spec for the agents (ADR 0032).
    await admin.core.patchNamespacedService({
      namespace,
      name: "web",
      body: [{ op: "remove", path: `/metadata/annotations/${ANNOTATION_SWH_SPEC.replace("/", "~1")}` }],
    });
    const watch = await watchSlices(namespace);
    cleanups.push(async () => watch.stop());
    const second = await startAgent(agentKc.kubeConfig, node);
    cleanups.push(() => second.stop());
    await waitFor(
      "the new agent's queue to drain",
      async () => (await metricValue(second.registry, "swh_workqueue_depth")) === 0,
    );
    expect(await metricValue(second.registry, "swh_probe_targets")).toBe(0);

    // The new controller's first reconcile publishes the spec: the agent starts probing from the published state.
    await admin.syncService(namespace, "web");
    await waitFor(
      "the agent to probe a three times",
      async () => (await metricValue(second.registry, "swh_probe_results_total")) >= 3,
    );
    await waitFor(
      "the agent's queue to drain",
      async () => (await metricValue(second.registry, "swh_workqueue_depth")) === 0,
    );
    expect(await metricValue(second.registry, "swh_slice_writes_total")).toBe(0);
    expect(watch.seen).toEqual([]);
  });

  it("recovers from an API server restart and converges on what changed meanwhile", async () => {
    const namespace = await cluster.createNamespace("apiserver");
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node });
    const [a, b] = ["10.244.91.5", "10.244.91.6"];
    const backendA = await startBackend(a, 8080);
    const backendB = await startBackend(b, 8080);
    cleanups.push(
      () => backendA.close(),
      () => backendB.close(),
    );
    await createPod(cluster.kubeConfig, { name: "a", namespace, node, ips: [a], labels: { app: "x" } });
    await admin.createSwh(namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http("/healthz")] },
    });
    const agent = await startAgent(agentKc.kubeConfig, node);
    cleanups.push(() => agent.stop());
    await waitFor("a ready", async () => published(await admin.slices(namespace), "web", 8080, a)?.ready);

    backendA.status.set("/healthz", 503);
    await cluster.restartApiServer();
    await waitFor(
      "a withdrawn after the restart",
      async () => published(await admin.slices(namespace), "web", 8080, a)?.reason === "HTTPStatus",
    );
    // Watches broke and were re-established: a pod created now is still seen.
    await createPod(cluster.kubeConfig, { name: "b", namespace, node, ips: [b], labels: { app: "x" } });
    await waitFor(
      "b published after the restart",
      async () => published(await admin.slices(namespace), "web", 8080, b)?.ready,
    );
    expect(await metricValue(agent.registry, "swh_watch_restarts_total")).toBeGreaterThan(0);
    backendA.status.set("/healthz", 200);
    await waitFor("a back", async () => published(await admin.slices(namespace), "web", 8080, a)?.ready);
  });
});
