/**
 * Adaptive probe periods (ADR 0037), measured end to end: one pod behind an SWH with periodSeconds 5 and
 * thresholds 3 (failure) / 2 (success), once with a fixed period and once with transitionPeriodSeconds 1 and
 * downPeriodSeconds 30. For each, SWH_BENCH_ADAPTIVE_FLIPS pairs of flips (default 6): the time from the backend
 * changing state to the EndpointSlice showing it (detection + thresholds + write, through a watch), and the probes
 * the backend received during SWH_BENCH_DOWN_S seconds (default 60) while down.
 * Run: `./scripts/run bench adaptive-periods`.
 */
import { CoreV1Api, DiscoveryV1Api } from "@kubernetes/client-node";
import { httpProbe, LABEL_MANAGED_BY, MANAGED_BY, serviceWithHealthchecks } from "@swh/crd-types";
import { installProduct, Product, startHttpBackend } from "@swh/e2e";
import { clusterFromInfo, createNode, createPod, startControlPlane } from "@swh/testenv";
import { percentile, printFigures } from "./report.ts";

const FLIPS = Number(process.env.SWH_BENCH_ADAPTIVE_FLIPS ?? 6);
const DOWN_S = Number(process.env.SWH_BENCH_DOWN_S ?? 60);
const NS = "bench";
const ADDRESS = "10.244.51.10";
const NODE = "bench-node";

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
const product = new Product(cluster, { logLevel: "warn" });
let probes = 0;
const server = await startHttpBackend(ADDRESS, 8080, "web", () => {
  probes++;
});
const healthcheck = (adaptive: boolean) => ({
  initialDelaySeconds: 0,
  periodSeconds: 5,
  ...(adaptive ? { transitionPeriodSeconds: 1, downPeriodSeconds: 30 } : {}),
  probes: [httpProbe("http", { timeoutSeconds: 1, successThreshold: 2, failureThreshold: 3 })],
});
try {
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE });
  await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  await createPod(cluster.kubeConfig, {
    name: "web",
    namespace: NS,
    node: NODE,
    ips: [ADDRESS],
    labels: { app: "web" },
    containerPorts: [{ name: "http", containerPort: 8080 }],
  });
  await product.startController();
  await product.startAgent(NODE);
  const spec = (adaptive: boolean) => ({
    selector: { app: "web" },
    ports: [{ name: "http", port: 80, targetPort: "http" }],
    healthcheck: healthcheck(adaptive),
  });
  await cluster.apply([serviceWithHealthchecks({ name: "web", namespace: NS }, spec(false))], {
    namespace: NS,
  });
  // Polled every 100 ms (the figures are seconds; a watch idles out during the long down phase).
  const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  const published = {
    async until(ready: boolean, timeoutMs: number): Promise<number> {
      const deadline = performance.now() + timeoutMs;
      while (performance.now() < deadline) {
        const list = await discovery.listNamespacedEndpointSlice({
          namespace: NS,
          labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
        });
        const endpoint = list.items.flatMap((s) => s.endpoints ?? [])[0];
        if (endpoint !== undefined && (endpoint.conditions?.ready === true) === ready)
          return performance.now();
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`slice did not become ready=${ready} in ${timeoutMs} ms`);
    },
  };
  await published.until(true, 60_000);
  const figures: [string, string][] = [];
  for (const adaptive of [false, true]) {
    await cluster.apply([serviceWithHealthchecks({ name: "web", namespace: NS }, spec(adaptive))], {
      namespace: NS,
    });
    // Let the agent pick the new settings up (a new target may dip to not ready while it comes up).
    await new Promise((r) => setTimeout(r, 15_000));
    await published.until(true, 60_000);
    const down: number[] = [];
    const up: number[] = [];
    let downProbes = 0;
    for (let i = 0; i < FLIPS; i++) {
      // Start anywhere in the period, as a real failure does.
      await new Promise((r) => setTimeout(r, Math.random() * 5_000));
      await server.setHealthy(false);
      const failedAt = performance.now();
      down.push((await published.until(false, 120_000)) - failedAt);
      if (i === 0) {
        const before = probes;
        await new Promise((r) => setTimeout(r, DOWN_S * 1000));
        downProbes = probes - before;
      }
      await server.setHealthy(true);
      const recoveredAt = performance.now();
      up.push((await published.until(true, 120_000)) - recoveredAt);
    }
    const name = adaptive ? "transition 1 s, down 30 s" : "fixed 5 s";
    const stats = (xs: number[]) =>
      `p50 ${(percentile(xs, 50) / 1000).toFixed(1)} s, max ${(Math.max(...xs) / 1000).toFixed(1)} s`;
    figures.push([`${name}: backend fails → slice not ready`, stats(down)]);
    figures.push([`${name}: backend recovers → slice ready`, stats(up)]);
    figures.push([`${name}: probes in ${DOWN_S} s while down`, String(downProbes)]);
  }
  printFigures(
    `adaptive periods (1 pod, HTTP, period 5 s, failureThreshold 3, successThreshold 2, ${FLIPS} flips each)`,
    figures,
  );
} finally {
  await product.stop();
  await server.close();
  await cp.stop();
}
