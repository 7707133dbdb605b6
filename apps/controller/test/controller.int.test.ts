/**
 * The controller against the real API server, in-process, acting as its own ServiceAccount with the RBAC that
 * deploy/manifests ships, through a proxy that counts its requests. One controller for the whole file; each
 * test uses its own namespace (and its own node names).
 */
import { EventsV1Api, type V1Service } from "@kubernetes/client-node";
import {
  CONDITION_TYPES,
  LABEL_MANAGED_SERVICE,
  MANAGED_BY,
  type ServiceWithHealthchecks,
} from "@swh/crd-types";
import { ANNOTATION_SWH_SPEC } from "@swh/crd-types/internal";
import { createKubeMetrics, createMetricsRegistry, EventRecorder } from "@swh/kube";
import {
  type CountingProxy,
  createNode,
  deleteNode,
  setNodeReady,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import type { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningController, runController } from "../src/run-controller.js";
import { controllerIdentity, INSTALL_NAMESPACE, installController } from "./support/harness.js";
import { agentSlice, clients } from "./support/objects.js";
import { testLogger } from "./support/quiet-logger.js";

const NODE_GRACE_MS = 3_000;
const RESYNC_MS = 5_000;

let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
let proxy: CountingProxy;
let registry: Registry;
let controller: RunningController;
const stop = new AbortController();
const events: { reason: string; type: string; name: string; message: string }[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installController(cluster);
  const identity = await controllerIdentity(cluster);
  proxy = identity.proxy;
  registry = createMetricsRegistry();
  const { logger } = testLogger();
  const kubeMetrics = createKubeMetrics(registry);
  const recorder = new EventRecorder({
    component: "network.deckhouse.io/swh-controller",
    kubeConfig: identity.kubeConfig,
    logger,
    metrics: kubeMetrics,
  });
  controller = runController(
    { namespace: INSTALL_NAMESPACE, nodeNotReadyGraceMs: NODE_GRACE_MS, resyncMs: RESYNC_MS },
    {
      kubeConfig: identity.kubeConfig,
      logger,
      registry,
      kubeMetrics,
      // The real recorder writes Events as the controller's ServiceAccount; the list lets tests look at them quickly.
      events: {
        record: (obj, type, reason, message) => {
          events.push({ reason, type, name: obj.name, message });
          recorder.record(obj, type, reason, message);
        },
      },
      signal: stop.signal,
    },
  );
  await waitFor("controller caches synced", () => controller.ready());
});

afterAll(async () => {
  stop.abort();
  await controller?.done;
  await proxy?.close();
});

const condition = (swh: ServiceWithHealthchecks, type: string) =>
  swh.status?.conditions?.find((c) => c.type === type);

async function waitForCondition(
  namespace: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
) {
  return waitFor(`${namespace}/${name} ${type}=${status}${reason ? ` (${reason})` : ""}`, async () => {
    const swh = await admin.getSwh(namespace, name);
    const c = condition(swh, type);
    return c?.status === status &&
      (reason === undefined || c.reason === reason) &&
      swh.status?.observedGeneration === swh.metadata.generation
      ? swh
      : undefined;
  });
}

async function waitForService(
  namespace: string,
  name: string,
  check: (svc: V1Service) => boolean = () => true,
) {
  return waitFor(`Service ${namespace}/${name}`, async () => {
    const svc = await admin.getService(namespace, name);
    return svc !== undefined && check(svc) ? svc : undefined;
  });
}

describe("child Service", () => {
  it("creates a selector-less Service with exactly the SWH's Service fields, owned by the SWH", async () => {
    const ns = await cluster.createNamespace("create");
    const swh = await admin.createSwh(
      ns,
      "web",
      {
        type: "LoadBalancer",
        selector: { app: "web" },
        ports: [{ name: "http", port: 80, targetPort: 8080 }],
        loadBalancerSourceRanges: ["10.0.0.0/8"],
        externalIPs: ["192.0.2.10"],
        sessionAffinity: "ClientIP",
        publishNotReadyAddresses: true,
        healthcheck: { probes: [{ mode: "TCP", tcp: { targetPort: 8080 } }] },
      },
      {
        labels: { app: "web" },
        annotations: { team: "a", "kubectl.kubernetes.io/last-applied-configuration": "{}" },
      },
    );
    const svc = await waitForService(ns, "web");
    const clusterIP = svc.spec?.clusterIP ?? "";
    expect(clusterIP).toMatch(/^10\.96\./);
    expect(svc.spec).toEqual({
      type: "LoadBalancer",
      allocateLoadBalancerNodePorts: true,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP", nodePort: expect.any(Number) }],
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      externalIPs: ["192.0.2.10"],
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      publishNotReadyAddresses: true,
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
      externalTrafficPolicy: "Cluster",
    });
    expect(svc.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "network.deckhouse.io/v1alpha1",
        kind: "ServiceWithHealthchecks",
        name: "web",
        uid: swh.metadata.uid,
        controller: true,
      },
    ]);
    expect(svc.metadata?.labels).toEqual({ app: "web", [LABEL_MANAGED_SERVICE]: MANAGED_BY });
    expect(svc.metadata?.annotations).toEqual({
      team: "a",
      "network.deckhouse.io/swh-propagated-labels": '["app"]',
      "network.deckhouse.io/swh-propagated-annotations": '["team"]',
      [ANNOTATION_SWH_SPEC]: expect.any(String),
    });
    // The spec the agents read (ADR 0032): the stored SWH's, defaults included, with its uid and generation.
    expect(JSON.parse(svc.metadata?.annotations?.[ANNOTATION_SWH_SPEC] ?? "")).toEqual({
      uid: swh.metadata.uid,
      generation: 1,
      spec: (await admin.getSwh(ns, "web")).spec,
    });

    const status = await waitForCondition(ns, "web", CONDITION_TYPES.serviceReady, "True");
    expect(condition(status, CONDITION_TYPES.childServiceReady)?.status).toBe("True");
    expect(status.status).toMatchObject({ clusterIP, clusterIPs: [clusterIP] });
    expect(events.some((e) => e.name === "web" && e.reason === "ServiceCreated")).toBe(true);
    await waitFor("ServiceCreated Event in the API", async () => {
      const list = await cluster.kubeConfig.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
      return list.items.some((e) => e.reason === "ServiceCreated" && e.regarding?.name === "web");
    });
  });

  it("follows changes to ports, labels, annotations and source ranges; keeps cluster IP, node ports and others' keys", async () => {
    const ns = await cluster.createNamespace("update");
    await admin.createSwh(
      ns,
      "web",
      {
        type: "LoadBalancer",
        ports: [{ name: "http", port: 80, targetPort: 8080 }],
        loadBalancerSourceRanges: ["10.0.0.0/8"],
      },
      { labels: { app: "web", tier: "front" }, annotations: { team: "a" } },
    );
    const before = await waitForService(ns, "web");
    const nodePort = before.spec?.ports?.[0]?.nodePort;
    // Someone else (an LB controller, an operator) adds their own keys to the Service.
    await admin.core.patchNamespacedService(
      {
        namespace: ns,
        name: "web",
        body: { metadata: { labels: { other: "x" }, annotations: { "lb.example.com/id": "42" } } },
      },
      (await import("@kubernetes/client-node")).setHeaderOptions(
        "Content-Type",
        "application/merge-patch+json",
      ),
    );

    await admin.patchSwh(ns, "web", {
      metadata: { labels: { tier: null, app: "web2" }, annotations: { team: null, owner: "b" } },
      spec: {
        ports: [
          { name: "http", port: 80, targetPort: 8081 },
          { name: "metrics", port: 9090, targetPort: 9090 },
        ],
        loadBalancerSourceRanges: ["192.168.0.0/16"],
      },
    });
    const after = await waitForService(
      ns,
      "web",
      (s) => s.spec?.ports?.length === 2 && s.metadata?.labels?.app === "web2",
    );
    expect(after.spec?.clusterIP).toBe(before.spec?.clusterIP);
    expect(after.spec?.ports?.[0]).toEqual({
      name: "http",
      port: 80,
      targetPort: 8081,
      protocol: "TCP",
      nodePort,
    });
    expect(after.spec?.ports?.[1]).toMatchObject({
      name: "metrics",
      port: 9090,
      targetPort: 9090,
      nodePort: expect.any(Number),
    });
    expect(after.spec?.loadBalancerSourceRanges).toEqual(["192.168.0.0/16"]);
    expect(after.metadata?.labels).toEqual({ app: "web2", other: "x", [LABEL_MANAGED_SERVICE]: MANAGED_BY });
    expect(after.metadata?.annotations).toMatchObject({ owner: "b", "lb.example.com/id": "42" });
    expect(after.metadata?.annotations?.team).toBeUndefined();
  });

  it("leaves a foreign Service untouched with a conflict condition, and adopts it once the conflict is resolved", async () => {
    const ns = await cluster.createNamespace("foreign");
    const foreign = await admin.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: "db" }, spec: { selector: { app: "db" }, ports: [{ port: 5432 }] } },
    });
    await admin.createSwh(ns, "db", { ports: [{ name: "pg", port: 5432 }] });
    await waitForCondition(ns, "db", CONDITION_TYPES.serviceReady, "False", "ServiceHasSelector");
    const untouched = await admin.getService(ns, "db");
    expect(untouched?.metadata?.resourceVersion).toBe(foreign.metadata?.resourceVersion);

    // Resolve: the owner of the foreign Service drops its selector; now it is selector-less and ownerless.
    const { selector: _dropped, ...withoutSelector } = untouched?.spec ?? {};
    await admin.core.replaceNamespacedService({
      namespace: ns,
      name: "db",
      body: { ...untouched, spec: withoutSelector },
    });
    const adopted = await waitForService(ns, "db", (s) => (s.metadata?.ownerReferences ?? []).length === 1);
    expect(adopted.spec?.clusterIP).toBe(foreign.spec?.clusterIP);
    expect(adopted.spec?.ports).toEqual([{ name: "pg", port: 5432, targetPort: 5432, protocol: "TCP" }]);
    await waitForCondition(ns, "db", CONDITION_TYPES.serviceReady, "True");
  });

  it("reports a Service controlled by another owner and never writes it", async () => {
    const ns = await cluster.createNamespace("owned");
    const other = await admin.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "owner" } },
    });
    const svc = await admin.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: {
          name: "api",
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "owner",
              uid: other.metadata?.uid ?? "",
              controller: true,
            },
          ],
        },
        spec: { ports: [{ port: 80 }] },
      },
    });
    await admin.createSwh(ns, "api", { ports: [{ port: 8080 }] });
    const swh = await waitForCondition(
      ns,
      "api",
      CONDITION_TYPES.serviceReady,
      "False",
      "ServiceOwnedByOther",
    );
    expect(condition(swh, CONDITION_TYPES.ready)?.status).toBe("False");
    expect((await admin.getService(ns, "api"))?.metadata?.resourceVersion).toBe(
      svc.metadata?.resourceVersion,
    );
  });

  it("reports a cluster IP change as immutable instead of writing", async () => {
    const ns = await cluster.createNamespace("clusterip");
    await admin.createSwh(ns, "web", { ports: [{ port: 80 }] });
    const svc = await waitForService(ns, "web");
    await waitForCondition(ns, "web", CONDITION_TYPES.serviceReady, "True");
    const other = svc.spec?.clusterIP === "10.96.250.250" ? "10.96.250.251" : "10.96.250.250";
    await admin.patchSwh(ns, "web", { spec: { clusterIP: other } });
    const swh = await waitForCondition(
      ns,
      "web",
      CONDITION_TYPES.serviceReady,
      "False",
      "ClusterIPImmutable",
    );
    expect(condition(swh, CONDITION_TYPES.serviceReady)?.message).toContain(svc.spec?.clusterIP ?? "?");
    expect((await admin.getService(ns, "web"))?.metadata?.resourceVersion).toBe(
      svc.metadata?.resourceVersion,
    );
    expect(swh.status?.clusterIP).toBe(svc.spec?.clusterIP);
  });

  it("is removed with its slices by the garbage collector when the SWH is deleted", async () => {
    const ns = await cluster.createNamespace("gc");
    const swh = await admin.createSwh(ns, "web", { ports: [{ name: "http", port: 80 }] });
    await waitForService(ns, "web");
    await admin.createSlice(
      agentSlice(swh, {
        node: "gc-node",
        port: { name: "http", port: 80 },
        endpoints: [{ address: "10.244.9.1", pod: "p1" }],
      }),
    );
    await admin.deleteSwh(ns, "web");
    await waitFor(
      "Service and slices gone",
      async () =>
        (await admin.getService(ns, "web")) === undefined && (await admin.listSlices(ns)).length === 0,
      // The garbage collector learns a new resource type on its discovery resync (every 30 s).
      { timeoutMs: 90_000 },
    );
  });
});

describe("status", () => {
  it("follows the slices agents write: per-port counts, ready summary, failing probe reasons", async () => {
    const ns = await cluster.createNamespace("status");
    const swh = await admin.createSwh(ns, "app", {
      ports: [
        { name: "http", port: 80, targetPort: 8080 },
        { name: "db", port: 5432 },
      ],
    });
    await admin.renewHeartbeat("status-node", 600);
    await createNode(cluster.kubeConfig, { name: "status-node" });
    const endpoints = [
      { address: "10.244.3.1", pod: "a" },
      { address: "10.244.3.2", pod: "b" },
    ];
    await admin.createSlice(
      agentSlice(swh, { node: "status-node", port: { name: "http", port: 8080 }, endpoints }),
    );
    const dbSlice = agentSlice(swh, {
      node: "status-node",
      port: { name: "db", port: 5432 },
      endpoints: [endpoints[0] as (typeof endpoints)[0], { address: "10.244.3.2", pod: "b", ready: false }],
      reasons: {
        "10.244.3.2": {
          probe: "PostgreSQL :5432",
          reason: "AuthFailed",
          message: "password authentication failed",
        },
      },
    });
    const created = await admin.createSlice(dbSlice);
    const notReady = await waitFor("status 3/4", async () => {
      const s = await admin.getSwh(ns, "app");
      return (s.status as { readySummary?: string } | undefined)?.readySummary === "3/4" ? s : undefined;
    });
    expect(notReady.status?.ports).toEqual([
      { name: "http", port: 80, readyEndpoints: 2, totalEndpoints: 2 },
      { name: "db", port: 5432, readyEndpoints: 1, totalEndpoints: 2 },
    ]);
    expect(notReady.status?.endpoints?.list[0]).toEqual({
      pod: "b",
      node: "status-node",
      address: "10.244.3.2",
      ports: [
        {
          name: "db",
          port: 5432,
          ready: false,
          failingProbe: "PostgreSQL :5432",
          reason: "AuthFailed",
          message: "password authentication failed",
        },
        { name: "http", port: 8080, ready: true },
      ],
    });
    expect(condition(notReady, CONDITION_TYPES.ready)).toMatchObject({
      status: "False",
      reason: "EndpointsNotReady",
    });
    // One Event per transition: however the slices' arrival interleaves, Ready never reports the same change twice.
    const readyEvents = events.filter((e) => e.name === "app" && e.message.startsWith("Ready is"));
    expect(readyEvents.filter((e, i) => i > 0 && readyEvents[i - 1]?.type === e.type)).toEqual([]);

    // The agent reports the endpoint healthy again.
    await admin.replaceSlice({
      ...created,
      metadata: { ...created.metadata, annotations: {} },
      endpoints: (created.endpoints ?? []).map((e) => ({
        ...e,
        conditions: { ready: true, serving: true, terminating: false },
      })),
    });
    const ready = await waitForCondition(ns, "app", CONDITION_TYPES.ready, "True");
    // The Event is recorded right after the status patch the line above observed: wait for it, do not race it.
    await waitFor("EndpointsReady Event", () =>
      events.some((e) => e.name === "app" && e.reason === "EndpointsReady" && e.type === "Normal"),
    );
    expect((ready.status as { readySummary?: string }).readySummary).toBe("4/4");
    await deleteNode(cluster.kubeConfig, "status-node");
  });
});

describe("nodes", () => {
  it("deletes a deleted Node's slices at once, and a NotReady Node's slices after the grace", async () => {
    const ns = await cluster.createNamespace("nodes");
    const swh = await admin.createSwh(ns, "web", { ports: [{ name: "http", port: 80 }] });
    for (const node of ["gone-node", "sick-node", "well-node"]) {
      // sick-node's agent is down too (its heartbeat expires at once): only then may its slices go.
      await admin.renewHeartbeat(node, node === "sick-node" ? 1 : 600);
      await createNode(cluster.kubeConfig, { name: node });
      await admin.createSlice(
        agentSlice(swh, {
          node,
          port: { name: "http", port: 80 },
          endpoints: [{ address: `10.244.4.${node.length}`, pod: node }],
        }),
      );
    }
    await waitFor("3 slices", async () => (await admin.listSlices(ns)).length === 3);

    const deletedAt = Date.now();
    await deleteNode(cluster.kubeConfig, "gone-node");
    await waitFor("gone-node's slice removed", async () =>
      (await admin.listSlices(ns)).every(
        (x) => x.metadata?.labels?.["network.deckhouse.io/swh-node"] !== "gone-node",
      ),
    );
    // A figure for the report, not an assertion (tests do not assert timing).
    console.info(
      `measured: slices of a deleted Node removed ${Date.now() - deletedAt} ms after the delete call`,
    );
    await setNodeReady(cluster.kubeConfig, "sick-node", false);
    const remaining = await waitFor("slices of gone-node and sick-node removed", async () => {
      const slices = await admin.listSlices(ns);
      return slices.length === 1 ? slices : undefined;
    });
    expect(remaining[0]?.metadata?.labels?.["network.deckhouse.io/swh-node"]).toBe("well-node");
    await deleteNode(cluster.kubeConfig, "sick-node");
    await deleteNode(cluster.kubeConfig, "well-node");
  });

  it("reports an agent whose heartbeat stopped on a Ready node, and keeps its slices", async () => {
    const ns = await cluster.createNamespace("heartbeat");
    const swh = await admin.createSwh(ns, "web", { ports: [{ name: "http", port: 80 }] });
    await createNode(cluster.kubeConfig, { name: "silent-node" });
    // The slice first, then a heartbeat that expires after it: an agent that wrote, renewed once and went silent
    // (a slice created after the Lease expired would prove the agent alive then, ADR 0023).
    await admin.createSlice(
      agentSlice(swh, {
        node: "silent-node",
        port: { name: "http", port: 80 },
        endpoints: [{ address: "10.244.5.1", pod: "p" }],
      }),
    );
    await admin.renewHeartbeat("silent-node", 1);

    const stale = await waitForCondition(ns, "web", "AgentsReporting", "False", "AgentHeartbeatStale");
    expect(condition(stale, "AgentsReporting")?.message).toContain("silent-node");
    expect(await registry.getSingleMetricAsString("swh_agent_heartbeat_stale")).toContain(
      'swh_agent_heartbeat_stale{node="silent-node"} 1',
    );
    expect(await admin.listSlices(ns)).toHaveLength(1);

    await admin.renewHeartbeat("silent-node", 600);
    await waitForCondition(ns, "web", "AgentsReporting", "True");
    expect(await registry.getSingleMetricAsString("swh_agent_heartbeat_stale")).toContain(
      'swh_agent_heartbeat_stale{node="silent-node"} 0',
    );
    await deleteNode(cluster.kubeConfig, "silent-node");
  });

  it("keeps the slices of a NotReady node while its agent renews its heartbeat, and reports it", async () => {
    const ns = await cluster.createNamespace("alive");
    const swh = await admin.createSwh(ns, "web", { ports: [{ name: "http", port: 80 }] });
    await createNode(cluster.kubeConfig, { name: "alive-node" });
    await admin.renewHeartbeat("alive-node", 600);
    await admin.createSlice(
      agentSlice(swh, {
        node: "alive-node",
        port: { name: "http", port: 80 },
        endpoints: [{ address: "10.244.5.2", pod: "p" }],
      }),
    );
    await waitForCondition(ns, "web", CONDITION_TYPES.ready, "True");
    await setNodeReady(cluster.kubeConfig, "alive-node", false);

    // Past the grace (3 s) the node is reported, and its slice stays.
    const reported = await waitForCondition(ns, "web", "AgentsReporting", "True", "NodeNotReadyAgentAlive");
    expect(condition(reported, "AgentsReporting")?.message).toContain("alive-node");
    expect(await registry.getSingleMetricAsString("swh_node_not_ready_agent_alive")).toContain(
      'swh_node_not_ready_agent_alive{node="alive-node"} 1',
    );
    expect(await admin.listSlices(ns)).toHaveLength(1);
    await waitFor("NodeNotReadyAgentAlive Event", () =>
      events.some((e) => e.name === "alive-node" && e.reason === "NodeNotReadyAgentAlive"),
    );

    // Once the agent stops renewing, it cannot act any more: the slice goes.
    await admin.renewHeartbeat("alive-node", 1);
    await waitFor("alive-node's slice removed", async () => (await admin.listSlices(ns)).length === 0);
    await deleteNode(cluster.kubeConfig, "alive-node");
  });
});

describe("steady state", () => {
  it("makes zero writes while nothing changes, across informer resyncs", async () => {
    const ns = await cluster.createNamespace("steady");
    const swh = await admin.createSwh(ns, "web", {
      type: "LoadBalancer",
      ports: [{ name: "http", port: 80 }],
      loadBalancerSourceRanges: ["10.0.0.0/8"],
    });
    await admin.renewHeartbeat("steady-node", 600);
    await createNode(cluster.kubeConfig, { name: "steady-node" });
    await admin.createSlice(
      agentSlice(swh, {
        node: "steady-node",
        port: { name: "http", port: 80 },
        endpoints: [{ address: "10.244.6.1", pod: "p" }],
      }),
    );
    await waitForCondition(ns, "web", CONDITION_TYPES.ready, "True");
    // Let anything in flight (queued keys, other tests' namespaces being finalized) settle.
    await waitFor(
      "controller idle",
      async () => {
        const last = proxy.writes().at(-1);
        return last === undefined || Date.now() - last.at > 3_000;
      },
      { timeoutMs: 60_000 },
    );
    const since = Date.now();
    // Three resync periods: every cached object is re-delivered (from the cache) and reconciled three times.
    await new Promise((resolve) => setTimeout(resolve, 3 * RESYNC_MS + 1_000));
    expect(proxy.writes(since)).toEqual([]);
    // ADR 0025: a resync replays the cache; the only reads are the leader election's.
    const reads = proxy.requests.filter(
      (r) => r.at >= since && r.method === "GET" && !r.path.includes("watch=true"),
    );
    expect(reads.filter((r) => !r.path.includes("/leases/"))).toEqual([]);
    await deleteNode(cluster.kubeConfig, "steady-node");
  });
});

describe("API server restart", () => {
  it("keeps reconciling after kube-apiserver restarts", async () => {
    const ns = await cluster.createNamespace("restart");
    await admin.createSwh(ns, "before", { ports: [{ port: 80 }] });
    await waitForService(ns, "before");
    await cluster.restartApiServer();
    await admin.createSwh(ns, "after", { ports: [{ port: 81 }] });
    const svc = await waitForService(ns, "after");
    expect(svc.spec?.ports?.[0]?.port).toBe(81);
    await admin.patchSwh(ns, "before", { spec: { ports: [{ port: 82 }] } });
    await waitForService(ns, "before", (s) => s.spec?.ports?.[0]?.port === 82);
  });
});
