/**
 * Benchmarks (a) and (b) of issue 10:
 *  (a) reaction latency: from the probe that crosses the threshold (the backend records when it served the first
 *      answer of its new state, so the threshold wait is excluded) to the EndpointSlice showing the new readiness,
 *      seen through a watch; p50/p99 over SWH_BENCH_FLIPS flips (default 100);
 *  (b) API writes per endpoint transition (agent slice writes and all API-server writes) and in a steady state
 *      (SWH_BENCH_STEADY_S seconds, default 60, nothing changing), and the CPU each process spent per transition;
 *  (c) the same reaction judged by traffic (issue 22, ./traffic-reaction.ts): through a real kube-proxy, from the
 *      backend failing to the last request reaching it, once per kube-proxy minSyncPeriod in SWH_BENCH_MIN_SYNC
 *      (default "1s,0s"; "" skips it), SWH_BENCH_TRAFFIC_FLIPS failing transitions each (default 30).
 * Run: `./scripts/run bench reaction` (or, built and inside scripts/netns.sh: node packages/e2e/bench/reaction.ts).
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { httpProbe, serviceWithHealthchecks } from "@swh/crd-types";
import {
  CLIENT_ADDRESS,
  diffCounts,
  installProduct,
  Product,
  parsePromText,
  readApiServerMetrics,
  readProcStats,
  startHttpBackend,
  sumSamples,
  writesByResource,
} from "@swh/e2e";
import {
  clusterFromInfo,
  controlPlanePids,
  createNode,
  createPod,
  startControlPlane,
  waitFor,
} from "@swh/testenv";
import { percentile, printFigures } from "./report.ts";
import { type Figures, measureTrafficReaction } from "./traffic-reaction.ts";
import { watchReadiness } from "./watch-readiness.ts";

const FLIPS = Number(process.env.SWH_BENCH_FLIPS ?? 100);
const STEADY_S = Number(process.env.SWH_BENCH_STEADY_S ?? 60);
const MIN_SYNC = (process.env.SWH_BENCH_MIN_SYNC ?? "1s,0s").split(",").filter(Boolean);
const TRAFFIC_FLIPS = Number(process.env.SWH_BENCH_TRAFFIC_FLIPS ?? 30);
const NS = "bench";
const ADDRESS = "10.244.50.10";
const NODE = { name: "bench-node", address: "10.244.50.1" };

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
const product = new Product(cluster, { logLevel: "warn" });
let healthy = true;
let changedServedAt: number | undefined; // first probe answered in the current state
let clientRequestAt = 0; // last request from the traffic client (phase c)
const server = await startHttpBackend(ADDRESS, 8080, "web", (from) => {
  if (from === CLIENT_ADDRESS) clientRequestAt = performance.now();
  else changedServedAt ??= performance.now();
});
const setHealthy = (value: boolean) => {
  healthy = value;
  changedServedAt = undefined;
  void server.setHealthy(value);
};
try {
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE.name, zone: "z", addresses: [NODE.address] });
  await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  await createPod(cluster.kubeConfig, {
    name: "web",
    namespace: NS,
    node: NODE.name,
    ips: [ADDRESS],
    labels: { app: "web" },
    containerPorts: [{ name: "http", containerPort: 8080 }],
  });
  await product.startController();
  const agent = await product.startAgent(NODE.name);
  await cluster.apply(
    [
      serviceWithHealthchecks(
        { name: "web", namespace: NS },
        {
          selector: { app: "web" },
          ports: [{ name: "http", port: 80, targetPort: "http" }],
          healthcheck: {
            initialDelaySeconds: 0,
            periodSeconds: 1,
            probes: [httpProbe("http", { timeoutSeconds: 1, successThreshold: 1, failureThreshold: 1 })],
          },
        },
      ),
    ],
    { namespace: NS },
  );

  const published = watchReadiness(cluster.kubeConfig, NS);
  await published.until(true, 60_000);

  const agentWrites = async () =>
    sumSamples(parsePromText(await agent.metrics()), "swh_slice_writes_total", { result: "success" });
  const writesBefore = writesByResource(await readApiServerMetrics(cp));
  const agentBefore = await agentWrites();
  const controller = [...product.controllers.values()][0];
  const pids = controlPlanePids(cp);
  const cpuOf = {
    agent: agent.pid,
    controller: controller?.pid ?? 0,
    apiserver: pids.apiServer,
    etcd: pids.etcd,
  };
  const cpuSeconds = () =>
    Object.fromEntries(Object.entries(cpuOf).map(([name, pid]) => [name, readProcStats(pid).cpuSeconds]));
  const cpuBefore = cpuSeconds();
  const latencies: number[] = [];
  for (let i = 0; i < FLIPS; i++) {
    setHealthy(!healthy);
    const seenAt = await published.until(healthy, 15_000);
    if (changedServedAt === undefined)
      throw new Error("slice changed before the backend answered in its new state");
    latencies.push(seenAt - changedServedAt);
    await new Promise((r) => setTimeout(r, Math.random() * 300));
  }
  if (!healthy) {
    setHealthy(true);
    await published.until(true, 15_000);
  }
  const cpuAfter = cpuSeconds();
  const transitions = FLIPS + (FLIPS % 2);
  const agentPerTransition = ((await agentWrites()) - agentBefore) / transitions;
  const flipsWrites = diffCounts(writesBefore, writesByResource(await readApiServerMetrics(cp)));

  const steadyBefore = writesByResource(await readApiServerMetrics(cp));
  await new Promise((r) => setTimeout(r, STEADY_S * 1000));
  const steady = diffCounts(steadyBefore, writesByResource(await readApiServerMetrics(cp)));

  const traffic: Figures = [];
  const clusterIP = await waitFor("the Service web has a ClusterIP", async () => {
    const service = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedService({ name: "web", namespace: NS });
    return service.spec?.clusterIP;
  });
  for (const minSyncPeriod of MIN_SYNC) {
    const figures = await measureTrafficReaction({
      cluster,
      node: NODE.name,
      clusterIP,
      port: 80,
      target: {
        setHealthy,
        probeChangedAt: () => changedServedAt,
        lastClientRequestAt: () => clientRequestAt,
      },
      published,
      minSyncPeriod,
      flips: TRAFFIC_FLIPS,
      everyMs: 5,
    });
    traffic.push(...figures);
  }
  published.stop();

  const perTransition = (key: string) => ((flipsWrites.get(key) ?? 0) / transitions).toFixed(2);
  const steadyNonLease = [...steady].filter(([k]) => k !== "leases").reduce((a, [, v]) => a + v, 0);
  printFigures("reaction latency and API writes (1 pod, HTTP probe, period 1 s, thresholds 1)", [
    ["flips", String(FLIPS)],
    ["(a) latency p50 (ms)", percentile(latencies, 50).toFixed(1)],
    ["(a) latency p99 (ms)", percentile(latencies, 99).toFixed(1)],
    ["(a) latency max (ms)", Math.max(...latencies).toFixed(1)],
    ["(b) agent slice writes per transition", agentPerTransition.toFixed(2)],
    ["(b) API writes per transition: endpointslices", perTransition("endpointslices")],
    ["(b) API writes per transition: swh status", perTransition("servicewithhealthchecks/status")],
    ["(b) API writes per transition: events", perTransition("events")],
    [`(b) steady state ${STEADY_S} s: writes other than Leases`, String(steadyNonLease)],
    [`(b) steady state ${STEADY_S} s: Lease renewals`, String(steady.get("leases") ?? 0)],
    ["(b) steady state writes by resource", JSON.stringify(Object.fromEntries(steady))],
    [
      "(b) CPU ms per transition: agent / controller / apiserver / etcd",
      Object.keys(cpuOf)
        .map((name) => ((((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0)) * 1000) / transitions).toFixed(1))
        .join(" / "),
    ],
  ]);
  if (traffic.length > 0)
    printFigures(
      "(c) reaction judged by traffic through kube-proxy (iptables, 1 request every 5 ms)",
      traffic,
    );
} finally {
  await product.stop();
  await server.close();
  await cp.stop();
}
