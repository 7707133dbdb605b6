/**
 * Measures the controller's pure per-reconcile work for one SWH: computing status from its slices (2 ports, N pods
 * in slices of 100) and comparing it with the stored status (the steady-state path: compute, compare, no write),
 * and planning the child Service. Prints the median of several runs.
 * Run: `pnpm --filter @swh/controller bench` (bundles this file with esbuild, then runs it).
 */
import { planService } from "@swh/aggregation";
import { API_VERSION, KIND, type ServiceWithHealthchecks } from "@swh/crd-types";
import type { SliceView } from "@swh/slice-writer";
import { computeStatus, sameStatus } from "@swh/status";

const RUNS = 15;

function median(fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

const swh: ServiceWithHealthchecks = {
  apiVersion: API_VERSION,
  kind: KIND,
  metadata: { name: "web", namespace: "default", uid: "u", generation: 1, resourceVersion: "1" },
  spec: {
    ports: [
      { name: "http", port: 80, targetPort: 8080 },
      { name: "db", port: 5432 },
    ],
  },
};

/** The slices as the controller's index holds them: read once by `readSlice` when the informer delivers them. */
function slicesFor(pods: number): SliceView[] {
  const out: SliceView[] = [];
  for (const port of [
    { name: "http", port: 8080 },
    { name: "db", port: 5432 },
  ]) {
    for (let start = 0; start < pods; start += 100) {
      const endpoints = [];
      for (let i = start; i < Math.min(pods, start + 100); i++) {
        const address = `10.244.${Math.floor(i / 250)}.${i % 250}`;
        endpoints.push({
          address,
          conditions: { ready: i % 10 !== 0, serving: i % 10 !== 0, terminating: false },
          nodeName: `node-${i % 50}`,
          targetRef: { kind: "Pod", name: `web-${i}`, namespace: "default", uid: `uid-${i}` },
        });
      }
      out.push({
        swhName: "web",
        namespace: "default",
        nodeName: endpoints[0]?.nodeName ?? "",
        portName: port.name,
        port: port.port,
        protocol: "TCP",
        addressFamily: "IPv4",
        endpoints,
      });
    }
  }
  return out;
}

const service = {
  metadata: {
    name: "web",
    namespace: "default",
    ownerReferences: [{ apiVersion: API_VERSION, kind: KIND, name: "web", uid: "u", controller: true }],
  },
  spec: {
    type: "ClusterIP",
    clusterIP: "10.96.0.10",
    clusterIPs: ["10.96.0.10"],
    sessionAffinity: "None",
    ports: [],
  },
};

console.log("pods  slices  computeStatus(ms)  compute+compare unchanged(ms)  planService(ms)");
for (const pods of [100, 1_000, 10_000]) {
  const slices = slicesFor(pods);
  const input = {
    swh,
    sync: { ready: true } as const,
    service,
    slices,
    staleNodes: new Set<string>(),
    now: new Date(),
  };
  const stored = computeStatus(input);
  const storedSwh = { ...swh, status: stored };
  const compute = median(() => computeStatus(input));
  const steady = median(() => sameStatus(stored, computeStatus({ ...input, swh: storedSwh })));
  const plan = median(() => planService(swh, undefined));
  console.log(
    `${String(pods).padStart(5)}  ${String(slices.length).padStart(6)}  ${compute.toFixed(2).padStart(17)}  ${steady.toFixed(2).padStart(29)}  ${plan.toFixed(3).padStart(15)}`,
  );
}
