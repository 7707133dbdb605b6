/**
 * Measures the pure hot path of the agent for one SWH on one node: aggregation of N pods and slice planning for
 * the resulting endpoints (from scratch, unchanged, one endpoint changed). Prints the median of several runs.
 * Run: `pnpm --filter @swh/slice-writer bench` (builds both packages first; runs on their dist/).
 */

import type { V1EndpointSlice } from "@kubernetes/client-node";
import { aggregateEndpoints, type PodInfo, planProbeTargets, type SwhInput } from "@swh/aggregation";
import type { DefaultedProbeSpec } from "@swh/crd-types";
import { planSlices, type SlicePlan } from "@swh/slice-writer";

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

function applied(plan: SlicePlan): V1EndpointSlice[] {
  return plan.create.map((s, i) => ({ ...s, metadata: { ...s.metadata, resourceVersion: String(i + 1) } }));
}

const tcp = (port: number): DefaultedProbeSpec => ({
  mode: "TCP",
  timeoutSeconds: 1,
  successThreshold: 1,
  failureThreshold: 3,
  tcp: { targetPort: port },
});

for (const podCount of [100, 1_000, 10_000]) {
  const pods: PodInfo[] = Array.from({ length: podCount }, (_, i) => ({
    name: `web-${i}`,
    namespace: "default",
    uid: `uid-${i}`,
    nodeName: "node-a",
    ips: [`10.244.${Math.floor(i / 250)}.${(i % 250) + 1}`],
    phase: "Running",
    ready: true,
    terminating: false,
    labels: { app: "web" },
    containerPorts: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  }));
  const swh: SwhInput = {
    name: "web",
    namespace: "default",
    uid: "u",
    spec: {
      type: "ClusterIP",
      selector: { app: "web" },
      ports: [
        { name: "http", protocol: "TCP", port: 80, targetPort: "http" },
        { name: "admin", protocol: "TCP", port: 9000, targetPort: 8080 },
      ],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 10, probes: [tcp(8080), tcp(8080)] },
    },
  };
  const targets = planProbeTargets([swh], pods);
  const states = new Map(targets.map((t) => [t.id, { passing: true }]));
  const zoneOf = () => "z1";
  const aggregateMs = median(() => aggregateEndpoints(swh, pods, states, { zoneOf }));
  const { groups } = aggregateEndpoints(swh, pods, states, { zoneOf });
  const input = {
    swh: { name: "web", namespace: "default", uid: "u" },
    nodeName: "node-a",
    groups,
    existing: [],
  };
  const fromScratchMs = median(() => planSlices(input));
  const existing = applied(planSlices(input));
  const unchangedMs = median(() => planSlices({ ...input, existing }));
  const flipped = groups.map((g, i) =>
    i === 0
      ? {
          ...g,
          endpoints: g.endpoints.map((e, j) =>
            j === 0 ? { ...e, conditions: { ...e.conditions, ready: false } } : e,
          ),
        }
      : g,
  );
  const oneChange = planSlices({ ...input, groups: flipped, existing });
  const oneChangeMs = median(() => planSlices({ ...input, groups: flipped, existing }));
  console.log(
    `${podCount} pods x 2 ports (${existing.length} slices): aggregate ${aggregateMs.toFixed(1)} ms, ` +
      `plan from scratch ${fromScratchMs.toFixed(1)} ms, plan unchanged ${unchangedMs.toFixed(1)} ms, ` +
      `plan one change ${oneChangeMs.toFixed(1)} ms (writes: ${oneChange.create.length}/${oneChange.update.length}/${oneChange.delete.length})`,
  );
}
