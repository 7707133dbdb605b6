/**
 * Benchmark (c) of issue 10, as issue 20 item 4 asks: the path users would otherwise take against ours, over the
 * same pods in the same run. Plain: `COUNT` Services **with selectors**, timed until kube-controller-manager's
 * EndpointSlice controller has published every pod ready in each (it runs in this control plane for that). SWH:
 * `COUNT` SWHs with an HTTP probe over the same pods, timed until the controller has created every Service and
 * status and the agents (one per node) have published every pod ready (target: ≤ 1.5× the plain time). Pods are
 * simulated (no kubelet) with real HTTP backends in the network namespace, so probes succeed. Completion is seen
 * through watches (informers), not by listing thousands of objects over and over, which would load the API
 * server the two sides share. The plain Services are deleted, and their slices and cluster IPs released, before
 * the SWH phase: the API server's IP allocator costs O(allocated addresses) per new Service (ADR 0012). The
 * agents start after that, so they load neither the plain phase nor its clean-up. Each phase also prints the CPU
 * seconds of every process on the machine that takes part and how busy that kept the cores: when the cores are
 * saturated, the ratio is bounded by the work the cluster does, not by waiting. Writes per SWH are counted at the
 * API server. SWH_BENCH_COUNT, SWH_BENCH_NODES and SWH_BENCH_PODS_PER_NODE change the shape (default 1,000
 * Services, 2 nodes × 5 pods). Run: `./scripts/run bench scale`.
 */

import { availableParallelism, loadavg } from "node:os";
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubernetesObject,
  NetworkingV1Api,
  type V1EndpointSlice,
  type V1Service,
} from "@kubernetes/client-node";
import {
  GROUP,
  httpProbe,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import {
  type Backend,
  diffCounts,
  installProduct,
  Product,
  readApiServerMetrics,
  readProcStats,
  startHttpBackend,
  sumSamples,
  writesByResource,
} from "@swh/e2e";
import { createLogger, startInformer } from "@swh/kube";
import {
  clusterFromInfo,
  controlPlanePids,
  createNode,
  createPod,
  startControlPlane,
  waitFor,
} from "@swh/testenv";
import { inParallel } from "./in-parallel.ts";
import { printFigures } from "./report.ts";
import { whenAllReady } from "./slice-tally.ts";

const COUNT = Number(process.env.SWH_BENCH_COUNT ?? 1000);
const NODES = Number(process.env.SWH_BENCH_NODES ?? 2);
const PODS_PER_NODE = Number(process.env.SWH_BENCH_PODS_PER_NODE ?? 5);
const PODS = NODES * PODS_PER_NODE;
const CONCURRENCY = 16;
const CORES = availableParallelism();
const NS = "scale";
/** kube-controller-manager's EndpointSlice controller's managed-by value. */
const KCM_MANAGED_BY = "endpointslice-controller.k8s.io";

const loadAtStart = loadavg();
const cp = await startControlPlane({ extraControllers: ["endpointslice-controller"] });
const cluster = clusterFromInfo(cp);
// SWH_BENCH_NODE_ARGS: extra Node flags for the controller, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = (process.env.SWH_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const product = new Product(cluster, { logLevel: "warn", nodeArgs });
const stopWatching = new AbortController();
const backends: Backend[] = [];
try {
  await installProduct(cluster);
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  const networking = cluster.kubeConfig.makeApiClient(NetworkingV1Api);
  const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  const allocatedIPs = async () => (await networking.listIPAddress()).items.length;
  await core.createNamespace({ body: { metadata: { name: NS } } });

  // The pods both sides select: PODS_PER_NODE on each of NODES nodes, each with an HTTP backend.
  const nodes = Array.from({ length: NODES }, (_, n) => `node-${n}`);
  for (const name of nodes) await createNode(cluster.kubeConfig, { name, zone: "z" });
  await inParallel(PODS, async (i) => {
    const address = `10.244.${70 + Math.floor(i / 200)}.${(i % 200) + 10}`;
    backends.push(await startHttpBackend(address, 8080, `pod-${i}`));
    await createPod(cluster.kubeConfig, {
      name: `pod-${i}`,
      namespace: NS,
      node: nodes[i % NODES] ?? "",
      ips: [address],
      labels: { app: "x" },
      containerPorts: [{ name: "http", containerPort: 8080 }],
    });
  });

  const controller = await product.startController();
  const pids = controlPlanePids(cp);
  const agentPids: number[] = [];
  /** CPU seconds so far of each process taking part. */
  const cpuNow = (): Record<string, number> => {
    const self = process.cpuUsage();
    const cpu: Record<string, number> = {
      apiserver: readProcStats(pids.apiServer).cpuSeconds,
      etcd: readProcStats(pids.etcd).cpuSeconds,
      controller: readProcStats(controller.pid).cpuSeconds,
      agents: agentPids.reduce((s, pid) => s + readProcStats(pid).cpuSeconds, 0),
      "bench client": (self.user + self.system) / 1e6,
    };
    if (pids.controllerManager !== undefined)
      cpu["kube-controller-manager"] = readProcStats(pids.controllerManager).cpuSeconds;
    return cpu;
  };
  const ports = [{ name: "http", port: 80, targetPort: 8080 }];
  const selector = { app: "x" };

  const logger = createLogger({ level: "warn" });
  const slices = startInformer<V1EndpointSlice>({
    kubeConfig: cluster.kubeConfig,
    name: "slices",
    path: `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
    list: () => discovery.listNamespacedEndpointSlice({ namespace: NS }),
    logger,
    signal: stopWatching.signal,
  });
  await slices.synced();

  // Plain: COUNT Services with selectors, until kube-controller-manager's slices hold every pod ready.
  const plainDone = whenAllReady({ slices, managedBy: KCM_MANAGED_BY, services: COUNT, endpoints: PODS });
  const plainRequestsBefore = await readApiServerMetrics(cp);
  const plainCpuBefore = cpuNow();
  const plainStart = performance.now();
  await inParallel(COUNT, (i) =>
    core.createNamespacedService({
      namespace: NS,
      body: { metadata: { name: `plain-${i}` }, spec: { ports, selector } },
    }),
  );
  const plainCreatedMs = performance.now() - plainStart;
  await plainDone;
  const plainMs = performance.now() - plainStart;
  const plainCpu = cpuSpent(plainCpuBefore, cpuNow());
  const plainWrites = diffCounts(
    writesByResource(plainRequestsBefore),
    writesByResource(await readApiServerMetrics(cp)),
  );
  const ipsAfterPlain = await allocatedIPs();
  await inParallel(COUNT, (i) => core.deleteNamespacedService({ namespace: NS, name: `plain-${i}` }));
  await waitFor(
    "the plain Services' slices deleted and cluster IPs released",
    async () =>
      (await allocatedIPs()) <= ipsAfterPlain - COUNT &&
      !slices
        .list()
        .some((s) => s.metadata?.labels?.["endpointslice.kubernetes.io/managed-by"] === KCM_MANAGED_BY),
    { timeoutMs: 300_000, intervalMs: 1000 },
  );
  const ipsBeforeSwh = await allocatedIPs();

  // The agents, one per node, then watches on the SWHs' Services and statuses.
  for (const node of nodes) agentPids.push((await product.startAgent(node)).pid);
  const services = startInformer<V1Service>({
    kubeConfig: cluster.kubeConfig,
    name: "services",
    path: `/api/v1/namespaces/${NS}/services`,
    list: () => core.listNamespacedService({ namespace: NS }),
    logger,
    signal: stopWatching.signal,
  });
  const swhs = startInformer<KubernetesObject>({
    kubeConfig: cluster.kubeConfig,
    name: "swhs",
    path: `/apis/${GROUP}/${VERSION}/namespaces/${NS}/${PLURAL}`,
    list: () =>
      custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL }),
    logger,
    signal: stopWatching.signal,
  });
  await Promise.all([services.synced(), swhs.synced()]);
  const servicesAndStatuses = () =>
    services.list().length === COUNT &&
    (swhs.list() as unknown as readonly ServiceWithHealthchecks[]).filter(
      (s) => (s.status?.conditions?.length ?? 0) > 0 && s.status?.clusterIP,
    ).length === COUNT;
  const swhDone = whenAllReady({
    slices,
    managedBy: MANAGED_BY,
    services: COUNT,
    endpoints: PODS,
    alsoDone: servicesAndStatuses,
    more: [services, swhs],
  });

  // The product: COUNT SWHs, then wait for every Service, status and slice.
  const requestsBefore = await readApiServerMetrics(cp);
  const swhCpuBefore = cpuNow();
  const swhStart = performance.now();
  const spec = {
    ports,
    selector,
    healthcheck: {
      initialDelaySeconds: 0,
      periodSeconds: 10,
      probes: [httpProbe(8080, { timeoutSeconds: 1 })],
    },
  };
  await inParallel(COUNT, (i) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NS,
      plural: PLURAL,
      body: serviceWithHealthchecks({ name: `s-${i}`, namespace: NS }, spec),
    }),
  );
  const createdMs = performance.now() - swhStart;
  await swhDone;
  const swhMs = performance.now() - swhStart;
  const swhCpu = cpuSpent(swhCpuBefore, cpuNow());
  const requestsAfter = await readApiServerMetrics(cp);
  const all = (samples: typeof requestsAfter) => sumSamples(samples, "apiserver_request_total");
  const writes = diffCounts(writesByResource(requestsBefore), writesByResource(requestsAfter));
  const totalWrites = [...writes.values()].reduce((a, b) => a + b, 0);
  const cpu = (await controller.metrics()).match(/^process_cpu_seconds_total (\S+)$/m)?.[1];

  printFigures(
    `${COUNT} SWHs vs ${COUNT} Services with selectors over the same ${PODS} pods on ${NODES} nodes (client concurrency ${CONCURRENCY})`,
    [
      ["plain: create all Services (s)", (plainCreatedMs / 1000).toFixed(2)],
      ["plain: until kube-controller-manager's slices hold every pod ready (s)", (plainMs / 1000).toFixed(2)],
      ["plain: API writes by resource", JSON.stringify(Object.fromEntries(plainWrites))],
      [
        "cluster IPs allocated after the plain phase / before the SWH phase",
        `${ipsAfterPlain} / ${ipsBeforeSwh}`,
      ],
      ["SWH: create all SWHs (s)", (createdMs / 1000).toFixed(2)],
      [
        "SWH: until every Service, status and slice (every pod ready) in place (s)",
        (swhMs / 1000).toFixed(2),
      ],
      ["ratio SWH / plain (target ≤ 1.5)", (swhMs / plainMs).toFixed(2)],
      ["plain phase: CPU seconds by process", describeCpu(plainCpu)],
      ["SWH phase: CPU seconds by process", describeCpu(swhCpu)],
      [
        `cores busy (of ${CORES}): plain phase / SWH phase`,
        `${busy(plainCpu, plainMs)} / ${busy(swhCpu, swhMs)}`,
      ],
      [
        "API requests during the SWH phase (all, incl. the bench's own watches)",
        String(all(requestsAfter) - all(requestsBefore)),
      ],
      ["API writes during the SWH phase by resource", JSON.stringify(Object.fromEntries(writes))],
      ["API writes per SWH", (totalWrites / COUNT).toFixed(2)],
      ["controller CPU seconds in total", cpu ?? "?"],
      ["load average at start / end (1 min)", `${loadAtStart[0]?.toFixed(2)} / ${loadavg()[0]?.toFixed(2)}`],
    ],
  );
} finally {
  stopWatching.abort();
  await product.stop();
  await Promise.all(backends.map((b) => b.close()));
  await cp.stop();
}
/** CPU seconds each process spent between two readings. */
function cpuSpent(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, s]) => [name, s - (before[name] ?? 0)]));
}

function totalCpu(cpu: Record<string, number>): number {
  return Object.values(cpu).reduce((a, b) => a + b, 0);
}

function describeCpu(cpu: Record<string, number>): string {
  const parts = Object.entries(cpu).map(([name, s]) => `${name} ${s.toFixed(1)}`);
  return `${totalCpu(cpu).toFixed(1)} (${parts.join(", ")})`;
}

/** Average number of cores the processes kept busy over `ms`. */
function busy(cpu: Record<string, number>, ms: number): string {
  return (totalCpu(cpu) / (ms / 1000)).toFixed(2);
}
