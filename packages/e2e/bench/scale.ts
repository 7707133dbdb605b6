/**
 * Benchmark (c) of issue 10: 1,000 SWHs created → every child Service and every status in place (one controller),
 * time and API requests, next to a plain client creating 1,000 Services in the same run (ratio; target ≤ 1.5×).
 * SWH_BENCH_COUNT changes the count. Run: `./scripts/run bench scale`.
 */
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
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
  sumSamples,
  writesByResource,
} from "@swh/e2e";
import { clusterFromInfo, startControlPlane } from "@swh/testenv";
import { printFigures } from "./report.ts";

const COUNT = Number(process.env.SWH_BENCH_COUNT ?? 1000);
const CONCURRENCY = 16;

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
const product = new Product(cluster, { logLevel: "warn" });
try {
  await installProduct(cluster);
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const name of ["plain", "swh"]) await core.createNamespace({ body: { metadata: { name } } });
  const controller = await product.startController();
  const spec = { ports: [{ name: "http", port: 80, targetPort: 8080 }], selector: { app: "x" } };

  // Plain client: 1,000 selector-less Services.
  const plainStart = performance.now();
  await inParallel(COUNT, (i) =>
    core.createNamespacedService({ namespace: "plain", body: { metadata: { name: `s-${i}` }, spec } }),
  );
  const plainMs = performance.now() - plainStart;

  // The product: 1,000 SWHs, then wait for every Service and every status.
  const requestsBefore = await readApiServerMetrics(cp);
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
  for (;;) {
    const services = (await core.listNamespacedService({ namespace: "swh" })).items.length;
    const list = (await custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: "swh",
      plural: PLURAL,
    })) as {
      items: ServiceWithHealthchecks[];
    };
    const withStatus = list.items.filter(
      (s) => (s.status?.conditions?.length ?? 0) > 0 && s.status?.clusterIP,
    ).length;
    if (services === COUNT && withStatus === COUNT) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const swhMs = performance.now() - swhStart;
  const requestsAfter = await readApiServerMetrics(cp);
  const all = (samples: typeof requestsAfter) => sumSamples(samples, "apiserver_request_total");
  const writes = diffCounts(writesByResource(requestsBefore), writesByResource(requestsAfter));
  const cpu = (await controller.metrics()).match(/^process_cpu_seconds_total (\S+)$/m)?.[1];

  printFigures(
    `${COUNT} SWHs vs ${COUNT} plain Services (one controller, client concurrency ${CONCURRENCY})`,
    [
      ["plain client: create all Services (s)", (plainMs / 1000).toFixed(2)],
      ["SWH: create all SWHs (s)", (createdMs / 1000).toFixed(2)],
      ["SWH: until every Service + status in place (s)", (swhMs / 1000).toFixed(2)],
      ["ratio SWH / plain", (swhMs / plainMs).toFixed(2)],
      [
        "API requests during the SWH phase (all, incl. our polling)",
        String(all(requestsAfter) - all(requestsBefore)),
      ],
      ["API writes during the SWH phase by resource", JSON.stringify(Object.fromEntries(writes))],
      ["controller CPU seconds in total", cpu ?? "?"],
    ],
  );
} finally {
  await product.stop();
  await cp.stop();
}

async function inParallel(count: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}
