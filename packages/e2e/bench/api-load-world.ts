/**
 * The cluster of the API load benchmark (api-load.ts): simulated nodes with simulated pods (no kubelet; each pod's
 * address has a real HTTP backend in the network namespace, so probes succeed), plain Services with selectors,
 * and SWHs. Pods are numbered across nodes (pod g is the (g mod perNode)-th pod of node floor(g / perNode)) and fall
 * into groups of GROUP_SIZE pods on different nodes; SWH i selects group i mod groups. So each SWH involves
 * GROUP_SIZE nodes and leaves the others out: the churn step can tell involved agents from the rest.
 */
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { GROUP, httpProbe, PLURAL, serviceWithHealthchecks, VERSION } from "@swh/crd-types";
import { type Backend, startHttpBackend } from "@swh/e2e";
import { createNode, createPod, type TestCluster } from "@swh/testenv";
import { inParallel } from "./in-parallel.ts";

/** Pods per group, i.e. nodes each SWH selects pods on (when there are that many nodes). */
export const GROUP_SIZE = 4;
/** Namespace of the pods and the SWHs. */
export const SWH_NAMESPACE = "bench";
/** Namespace of the plain Services. */
export const PLAIN_NAMESPACE = "plain";
const BACKEND_PORT = 8080;

/** The benchmark's sizes. */
export interface WorldShape {
  nodes: number;
  podsPerNode: number;
  /** All Services, SWH children included. */
  services: number;
  swhs: number;
  periodSeconds: number;
  /** Probe timeout: a loaded machine answers slowly, and a timeout flips an endpoint (the figures then show it). */
  timeoutSeconds: number;
}

/** Names and groups of what {@link buildWorld} made. */
export interface World {
  nodeNames: string[];
  groups: number;
  backends: Backend[];
  /** The nodes the pods of group `g` run on. */
  nodesOfGroup(g: number): Set<string>;
  /** How many pods group `g` has. */
  podsInGroup(g: number): number;
}

export const nodeName = (n: number) => `node-${String(n).padStart(4, "0")}`;
export const swhName = (i: number) => `swh-${i}`;
const podAddress = (g: number) => `10.244.${100 + Math.floor(g / 200)}.${(g % 200) + 10}`;

/** The label value of group `g`. */
export const groupLabel = (g: number) => `g-${g}`;

/** An SWH manifest selecting group `i mod groups`, probing HTTP every `periodSeconds` with `timeoutSeconds`. */
export function swhManifest(
  i: number,
  groups: number,
  periodSeconds: number,
  timeoutSeconds: number,
): object {
  return serviceWithHealthchecks(
    { name: swhName(i), namespace: SWH_NAMESPACE },
    {
      selector: { group: groupLabel(i % groups) },
      ports: [{ name: "http", port: 80, targetPort: "http" }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds,
        probes: [httpProbe("http", { timeoutSeconds })],
      },
    },
  );
}

/** Creates one pod `name` in group `group` on `node` at `address`, with a backend answering its probes. */
export async function addPod(
  cluster: TestCluster,
  opts: { name: string; node: string; group: number; address: string },
): Promise<Backend> {
  const backend = await startHttpBackend(opts.address, BACKEND_PORT, opts.name);
  await createPod(cluster.kubeConfig, {
    name: opts.name,
    namespace: SWH_NAMESPACE,
    node: opts.node,
    ips: [opts.address],
    labels: { group: groupLabel(opts.group) },
    containerPorts: [{ name: "http", containerPort: BACKEND_PORT }],
  });
  return backend;
}

/** An address for an extra pod, outside the range {@link buildWorld} uses. */
export const extraPodAddress = (k: number) => `10.244.250.${k + 10}`;

/** Creates the namespaces, nodes, pods (with backends), plain Services and SWHs. */
export async function buildWorld(cluster: TestCluster, shape: WorldShape): Promise<World> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const name of [SWH_NAMESPACE, PLAIN_NAMESPACE])
    await core.createNamespace({ body: { metadata: { name } } });
  const nodeNames = Array.from({ length: shape.nodes }, (_, n) => nodeName(n));
  await inParallel(nodeNames.length, (n) =>
    createNode(cluster.kubeConfig, { name: nodeNames[n] ?? "", zone: "z" }),
  );

  const pods = shape.nodes * shape.podsPerNode;
  const groups = Math.max(1, Math.floor(pods / GROUP_SIZE));
  // Group of pod g: spread so that a group's pods sit on different nodes (g, g + groups, g + 2·groups, …).
  const groupOf = (g: number) => g % groups;
  const nodeOf = (g: number) => Math.floor(g / shape.podsPerNode);
  const podsOf = (group: number) =>
    Array.from({ length: pods }, (_, g) => g).filter((g) => groupOf(g) === group);
  const backends: Backend[] = [];
  await inParallel(pods, async (g) => {
    backends.push(
      await addPod(cluster, {
        name: `pod-${g}`,
        node: nodeName(nodeOf(g)),
        group: groupOf(g),
        address: podAddress(g),
      }),
    );
  });

  const plain = shape.services - shape.swhs;
  if (plain < 0) throw new Error(`--services (${shape.services}) must be at least --swhs (${shape.swhs})`);
  await inParallel(plain, (i) =>
    core.createNamespacedService({
      namespace: PLAIN_NAMESPACE,
      body: {
        metadata: { name: `plain-${i}` },
        spec: {
          selector: { app: `plain-${i % 100}` },
          ports: [{ name: "http", port: 80, targetPort: 8080 }],
        },
      },
    }),
  );
  await inParallel(shape.swhs, (i) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: SWH_NAMESPACE,
      plural: PLURAL,
      body: swhManifest(i, groups, shape.periodSeconds, shape.timeoutSeconds),
    }),
  );
  return {
    nodeNames,
    groups,
    backends,
    nodesOfGroup: (group) => new Set(podsOf(group).map((g) => nodeName(nodeOf(g)))),
    podsInGroup: (group) => podsOf(group).length,
  };
}
