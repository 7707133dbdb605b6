/**
 * Integration-test harness for the agent: installs the CRD and the agent's RBAC exactly as deploy/manifests
 * ships them, runs agents in-process as the `swh-agent` ServiceAccount, and gives tests small helpers to create
 * SWHs, Services and backends and to read what the slices say. Namespaces whose credentials Secrets an agent may
 * read get the RoleBinding the chart renders (`enableCredentialsNamespaces` of @swh/testenv).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { Writable } from "node:stream";
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  type V1EndpointSlice,
} from "@kubernetes/client-node";
import { newServiceFor, planService } from "@swh/aggregation";
import {
  crdManifest,
  GROUP,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  type ServiceWithHealthchecksSpec,
  VERSION,
} from "@swh/crd-types";
import { createLogger, type Logger } from "@swh/kube";
import { readSlice } from "@swh/slice-writer";
import { type TestCluster, waitFor } from "@swh/testenv";
import type { Registry } from "prom-client";
import { type RunningAgent, runAgent } from "../../src/run-agent.js";

/** The install namespace of the shipped manifests (heartbeat Leases live there). */
export const INSTALL_NAMESPACE = "swh-system";
const manifest = (name: string) =>
  readFileSync(new URL(`../../../../deploy/manifests/${name}`, import.meta.url), "utf8");

/** Applies the namespace, the CRD and the agent's RBAC (idempotent), and waits until the CRD serves. */
export async function installAgent(cluster: TestCluster): Promise<void> {
  await cluster.apply(manifest("namespace.yaml"));
  await cluster.apply([crdManifest()]);
  await cluster.apply(manifest("rbac-agent.yaml"));
  await cluster.apply(manifest("rbac-agent-credentials.yaml"));
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  await waitFor("the SWH resource to be served", async () => {
    await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL });
    return true;
  });
}

/** A kubeconfig acting as the agent's ServiceAccount (only the RBAC from deploy/manifests). */
export async function agentKubeConfig(
  cluster: TestCluster,
): Promise<{ kubeConfig: KubeConfig; path: string; token: string }> {
  const { kubeConfig, kubeconfigPath, token } = await cluster.serviceAccountKubeConfig(
    INSTALL_NAMESPACE,
    "swh-agent",
  );
  return { kubeConfig, path: kubeconfigPath, token };
}

/** A logger keeping lines in memory (printed live when SWH_TEST_LOGS=1). */
function testLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      if (process.env.SWH_TEST_LOGS === "1") process.stderr.write(chunk);
      done();
    },
  });
  return { logger: createLogger({ level: "debug", stream }), lines };
}

/** Starts an in-process agent for `nodeName` as the agent ServiceAccount. */
export async function startAgent(
  kubeConfig: KubeConfig,
  nodeName: string,
  extra: { heartbeatIntervalMs?: number; credentialsNamespaces?: readonly string[] } = {},
): Promise<RunningAgent & { logs: string[] }> {
  const { logger, lines } = testLogger();
  const agent = await runAgent({
    kubeConfig,
    nodeName,
    namespace: INSTALL_NAMESPACE,
    logger,
    coalesceMs: 50,
    metricsBindAddress: { host: "127.0.0.1", port: 0 },
    healthBindAddress: undefined,
    heartbeatIntervalMs: extra.heartbeatIntervalMs ?? 1_000,
    credentialsNamespaces: extra.credentialsNamespaces ?? [],
    resyncMs: 30_000,
  });
  return Object.assign(agent, { logs: lines });
}

/** Sum of a counter/gauge's values whose labels include `labels`. */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}) {
  const metric = await registry.getSingleMetric(name)?.get();
  let sum = 0;
  for (const value of metric?.values ?? []) {
    if ((value as { metricName?: string }).metricName?.endsWith("_bucket")) continue;
    if ((value as { metricName?: string }).metricName?.endsWith("_sum")) continue;
    if (Object.entries(labels).every(([k, v]) => (value.labels as Record<string, unknown>)[k] === v)) {
      sum += value.value;
    }
  }
  return sum;
}

/** Admin clients for setup and assertions. */
export function clients(kc: KubeConfig) {
  const core = kc.makeApiClient(CoreV1Api);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  return {
    core,
    discovery,
    async createSwh(namespace: string, name: string, spec: ServiceWithHealthchecksSpec) {
      const swh = await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: "ServiceWithHealthchecks",
          metadata: { name },
          spec,
        },
      });
      // The Service the controller creates, by the controller's own planner: same name, no selector,
      // controlled by the SWH (ADR 0014), labelled for the agents' watch (ADR 0025), carrying the spec (ADR 0032).
      await core.createNamespacedService({ namespace, body: newServiceFor(swh as ServiceWithHealthchecks) });
    },
    /** Does the controller's Service sync for the SWH, with the controller's planner: after an SWH changed. */
    async syncService(namespace: string, name: string) {
      const swh = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name,
      })) as ServiceWithHealthchecks;
      const plan = planService(swh, await core.readNamespacedService({ namespace, name }));
      if (plan.action !== "update") throw new Error(`expected a Service update, got ${plan.action}`);
      await core.replaceNamespacedService({ namespace, name, body: plan.service });
    },
    async slices(namespace: string, node?: string): Promise<V1EndpointSlice[]> {
      const selector = [`${LABEL_MANAGED_BY}=${MANAGED_BY}`, ...(node ? [`${LABEL_NODE}=${node}`] : [])].join(
        ",",
      );
      return (await discovery.listNamespacedEndpointSlice({ namespace, labelSelector: selector })).items;
    },
  };
}

/** What the slices of one SWH say about one address on one port. */
export interface PublishedEndpoint {
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName?: string;
  zone?: string;
  reason?: string;
  slice: string;
}

/** Finds `address` on container port `port` in the slices of `swh` (undefined when not published). */
export function published(
  slices: readonly V1EndpointSlice[],
  swh: string,
  port: number,
  address: string,
): PublishedEndpoint | undefined {
  for (const slice of slices) {
    const view = readSlice(slice);
    if (view?.swhName !== swh || view.port !== port) continue;
    const endpoint = view.endpoints.find((e) => e.address === address);
    if (endpoint === undefined) continue;
    const out: PublishedEndpoint = { ...endpoint.conditions, slice: slice.metadata?.name ?? "" };
    if (endpoint.nodeName) out.nodeName = endpoint.nodeName;
    if (endpoint.zone) out.zone = endpoint.zone;
    if (endpoint.reason) out.reason = endpoint.reason.reason;
    return out;
  }
  return undefined;
}

/** A small HTTP backend on a pod address whose health answer the test controls. */
export interface Backend {
  /** Status returned for each path (default 200 for every path). */
  status: Map<string, number>;
  /** Body returned for each path (default "ok"). */
  bodies: Map<string, string>;
  /** Extra response headers for each path (default none). */
  headers: Map<string, Record<string, string>>;
  /** Requests received, by path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Starts an HTTP server on `host:port` answering `status.get(path) ?? 200`. */
export async function startBackend(host: string, port: number): Promise<Backend> {
  const status = new Map<string, number>();
  const bodies = new Map<string, string>();
  const headers = new Map<string, Record<string, string>>();
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res
      .writeHead(status.get(path) ?? 200, { connection: "close", ...headers.get(path) })
      .end(bodies.get(path) ?? "ok");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    status,
    bodies,
    headers,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A server that accepts connections and never answers: every probe of it hangs until its timeout. */
export interface SilentServer {
  /** Connections open now. */
  readonly open: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

/** Starts a `SilentServer` on `host:port`. */
export async function startSilentServer(host: string, port: number): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: 1024 }, () => resolve());
  });
  return {
    get open() {
      return sockets.size;
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
