/**
 * Benchmark (c) of issue 10: 1,000 SWHs created → every child Service and every status in place (one controller),
 * time and API requests, next to a plain client creating 1,000 Services in the same run (ratio; target ≤ 1.5×).
 * The plain Services are selector-less, like the Services the controller manages, so neither side makes the
 * kube-controller-manager write EndpointSlices. Completion is seen through watches (informers), not by listing
 * 2,000 objects over and over, which would load the API server the two sides share. The plain Services are
 * deleted, and their cluster IPs released, before the SWH phase: the API server's IP allocator costs O(allocated
 * addresses) per new Service, so leaving them would make every SWH's Service pay for the plain client's (ADR 0012).
 * Each phase also prints the CPU seconds of every process on the machine that takes part (API server, etcd,
 * kube-controller-manager, our controller, this bench as the client) and how busy that kept the cores: when the
 * cores are saturated, the ratio is bounded by the work the cluster does, not by waiting.
 * SWH_BENCH_COUNT changes the count. Run: `./scripts/run bench scale`.
 */

import { availableParallelism } from "node:os";
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  NetworkingV1Api,
  type V1Service,
} from "@kubernetes/client-node";
import {
  GROUP,
  PLURAL,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import {
  diffCounts,
  installProduct,
  Product,
  readApiServerMetrics,
  readProcStats,
  sumSamples,
  writesByResource,
} from "@swh/e2e";
import { createLogger, startInformer } from "@swh/kube";
import { clusterFromInfo, controlPlanePids, startControlPlane, waitFor } from "@swh/testenv";
import { printFigures } from "./report.ts";

const COUNT = Number(process.env.SWH_BENCH_COUNT ?? 1000);
const CONCURRENCY = 16;
const CORES = availableParallelism();

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
// SWH_BENCH_NODE_ARGS: extra Node flags for the controller, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = (process.env.SWH_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const product = new Product(cluster, { logLevel: "warn", nodeArgs });
const stopWatching = new AbortController();
try {
  await installProduct(cluster);
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  const networking = cluster.kubeConfig.makeApiClient(NetworkingV1Api);
  const allocatedIPs = async () => (await networking.listIPAddress()).items.length;
  for (const name of ["plain", "swh"]) await core.createNamespace({ body: { metadata: { name } } });
  const controller = await product.startController();
  const pids = controlPlanePids(cp);
  /** CPU seconds so far of each process taking part. */
  const cpuNow = (): Record<string, number> => {
    const self = process.cpuUsage();
    const cpu: Record<string, number> = {
      apiserver: readProcStats(pids.apiServer).cpuSeconds,
      etcd: readProcStats(pids.etcd).cpuSeconds,
      controller: readProcStats(controller.pid).cpuSeconds,
      "bench client": (self.user + self.system) / 1e6,
    };
    if (pids.controllerManager !== undefined)
      cpu["kube-controller-manager"] = readProcStats(pids.controllerManager).cpuSeconds;
    return cpu;
  };
  const ports = [{ name: "http", port: 80, targetPort: 8080 }];
  const spec = { ports, selector: { app: "x" } };

  // Plain client: 1,000 selector-less Services.
  const plainCpuBefore = cpuNow();
  const plainStart = performance.now();
  await inParallel(COUNT, (i) =>
    core.createNamespacedService({
      namespace: "plain",
      body: { metadata: { name: `s-${i}` }, spec: { ports } },
    }),
  );
  const plainMs = performance.now() - plainStart;
  const plainCpu = cpuSpent(plainCpuBefore, cpuNow());
  const ipsAfterPlain = await allocatedIPs();
  await inParallel(COUNT, (i) => core.deleteNamespacedService({ namespace: "plain", name: `s-${i}` }));
  await waitFor(
    "the plain Services' cluster IPs released",
    async () => (await allocatedIPs()) <= ipsAfterPlain - COUNT,
    { timeoutMs: 60_000 },
  );
  const ipsBeforeSwh = await allocatedIPs();

  // Watches on both collections of the SWH namespace; `done` resolves when every Service and status is there.
  const logger = createLogger({ level: "warn" });
  const services = startInformer<V1Service>({
    kubeConfig: cluster.kubeConfig,
    name: "services",
    path: "/api/v1/namespaces/swh/services",
    list: () => core.listNamespacedService({ namespace: "swh" }),
    logger,
    signal: stopWatching.signal,
  });
  const swhs = startInformer<KubernetesObject>({
    kubeConfig: cluster.kubeConfig,
    name: "swhs",
    path: `/apis/${GROUP}/${VERSION}/namespaces/swh/${PLURAL}`,
    list: () =>
      custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: "swh", plural: PLURAL }),
    logger,
    signal: stopWatching.signal,
  });
  await Promise.all([services.synced(), swhs.synced()]);
  const done = new Promise<void>((resolve) => {
    const check = () => {
      const withStatus = (swhs.list() as unknown as readonly ServiceWithHealthchecks[]).filter(
        (s) => (s.status?.conditions?.length ?? 0) > 0 && s.status?.clusterIP,
      ).length;
      if (services.list().length === COUNT && withStatus === COUNT) resolve();
    };
    for (const informer of [services, swhs] as const) {
      informer.on("add", check);
      informer.on("update", check);
    }
  });

  // The product: 1,000 SWHs, then wait for every Service and every status.
  const requestsBefore = await readApiServerMetrics(cp);
  const swhCpuBefore = cpuNow();
  const swhStart = performance.now();
  await inParallel(COUNT, (i) =>
    custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: "swh",
      plural: PLURAL,
      body: serviceWithHealthchecks({ name: `s-${i}`, namespace: "swh" }, spec),
    }),
  );
  const createdMs = performance.now() - swhStart;
  await done;
  const swhMs = performance.now() - swhStart;
  const swhCpu = cpuSpent(swhCpuBefore, cpuNow());
  const requestsAfter = await readApiServerMetrics(cp);
  const all = (samples: typeof requestsAfter) => sumSamples(samples, "apiserver_request_total");
  const writes = diffCounts(writesByResource(requestsBefore), writesByResource(requestsAfter));
  const cpu = (await controller.metrics()).match(/^process_cpu_seconds_total (\S+)$/m)?.[1];

  printFigures(
    `${COUNT} SWHs vs ${COUNT} plain Services (one controller, client concurrency ${CONCURRENCY})`,
    [
      ["plain client: create all Services (s)", (plainMs / 1000).toFixed(2)],
      [
        "cluster IPs allocated after the plain phase / before the SWH phase",
        `${ipsAfterPlain} / ${ipsBeforeSwh}`,
      ],
      ["SWH: create all SWHs (s)", (createdMs / 1000).toFixed(2)],
      ["SWH: until every Service + status in place (s)", (swhMs / 1000).toFixed(2)],
      ["ratio SWH / plain", (swhMs / plainMs).toFixed(2)],
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
      ["controller CPU seconds in total", cpu ?? "?"],
    ],
  );
} finally {
  stopWatching.abort();
  await product.stop();
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

async function inParallel(count: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}
