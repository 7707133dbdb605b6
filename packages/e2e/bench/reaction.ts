/**
 * Benchmarks (a) and (b) of issue 10:
 *  (a) reaction latency: from the probe that crosses the threshold (the backend records when it served the first
 *      answer of its new state, so the threshold wait is excluded) to the EndpointSlice showing the new readiness,
 *      seen through a watch; p50/p99 over SWH_BENCH_FLIPS flips (default 100);
 *  (b) API writes per endpoint transition (agent slice writes and all API-server writes) and in a steady state
 *      (SWH_BENCH_STEADY_S seconds, default 60, nothing changing).
 * Run: `./scripts/run bench reaction` (or, built and inside scripts/netns.sh: node packages/e2e/bench/reaction.ts).
 */
import { createServer } from "node:http";
import { CoreV1Api, type KubeConfig, Watch } from "@kubernetes/client-node";
import { httpProbe, LABEL_MANAGED_BY, MANAGED_BY, serviceWithHealthchecks } from "@swh/crd-types";
import {
  diffCounts,
  installProduct,
  Product,
  parsePromText,
  readApiServerMetrics,
  sumSamples,
  writesByResource,
} from "@swh/e2e";
import { clusterFromInfo, createNode, createPod, startControlPlane } from "@swh/testenv";
import { percentile, printFigures } from "./report.ts";

const FLIPS = Number(process.env.SWH_BENCH_FLIPS ?? 100);
const STEADY_S = Number(process.env.SWH_BENCH_STEADY_S ?? 60);
const NS = "bench";
const ADDRESS = "10.244.50.10";

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
const product = new Product(cluster, { logLevel: "warn" });
let healthy = true;
let changedServedAt: number | undefined; // first answer served in the current state
const server = createServer((_req, res) => {
  changedServedAt ??= performance.now();
  res.writeHead(healthy ? 200 : 503, { connection: "close" });
  res.end();
});
try {
  await new Promise<void>((resolve) => server.listen(8080, ADDRESS, resolve));
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: "bench-node", zone: "z" });
  await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  await createPod(cluster.kubeConfig, {
    name: "web",
    namespace: NS,
    node: "bench-node",
    ips: [ADDRESS],
    labels: { app: "web" },
    containerPorts: [{ name: "http", containerPort: 8080 }],
  });
  await product.startController();
  const agent = await product.startAgent("bench-node");
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

  const published = watchReadiness(cluster.kubeConfig);
  await published.until(true, 60_000);

  const agentWrites = async () =>
    sumSamples(parsePromText(await agent.metrics()), "swh_slice_writes_total", { result: "success" });
  const writesBefore = writesByResource(await readApiServerMetrics(cp));
  const agentBefore = await agentWrites();
  const latencies: number[] = [];
  for (let i = 0; i < FLIPS; i++) {
    healthy = !healthy;
    changedServedAt = undefined;
    const seenAt = await published.until(healthy, 15_000);
    if (changedServedAt === undefined)
      throw new Error("slice changed before the backend answered in its new state");
    latencies.push(seenAt - changedServedAt);
    await new Promise((r) => setTimeout(r, Math.random() * 300));
  }
  if (!healthy) {
    healthy = true;
    await published.until(true, 15_000);
  }
  const transitions = FLIPS + (FLIPS % 2);
  const agentPerTransition = ((await agentWrites()) - agentBefore) / transitions;
  const flipsWrites = diffCounts(writesBefore, writesByResource(await readApiServerMetrics(cp)));

  const steadyBefore = writesByResource(await readApiServerMetrics(cp));
  await new Promise((r) => setTimeout(r, STEADY_S * 1000));
  const steady = diffCounts(steadyBefore, writesByResource(await readApiServerMetrics(cp)));
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
  ]);
} finally {
  await product.stop();
  server.close();
  await cp.stop();
}

/** Watches the bench slice and resolves `until(ready)` with the time the endpoint was first seen in that state. */
function watchReadiness(kc: KubeConfig) {
  let current: boolean | undefined;
  let changedAt = 0;
  let waiter: { ready: boolean; resolve: (t: number) => void } | undefined;
  let controller: AbortController | undefined;
  void new Watch(kc)
    .watch(
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
      { labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}` },
      (_phase, slice: { endpoints?: { conditions?: { ready?: boolean } }[] }) => {
        const ready = slice.endpoints?.[0]?.conditions?.ready === true;
        if (slice.endpoints?.length && ready !== current) {
          current = ready;
          changedAt = performance.now();
          if (waiter?.ready === ready) waiter.resolve(changedAt);
        }
      },
      (err) => {
        if (err) process.stderr.write(`watch ended: ${String(err)}\n`);
      },
    )
    .then((c) => {
      controller = c;
    });
  return {
    until(ready: boolean, timeoutMs: number): Promise<number> {
      // Flips call this in the same tick as they change the backend, so the slice cannot be there yet.
      if (current === ready) return Promise.resolve(changedAt);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`slice did not become ready=${ready} in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiter = {
          ready,
          resolve: (t) => {
            clearTimeout(timer);
            waiter = undefined;
            resolve(t);
          },
        };
      });
    },
    stop() {
      controller?.abort();
    },
  };
}
