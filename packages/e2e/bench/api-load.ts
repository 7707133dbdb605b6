/**
 * API load benchmark (issue 20, item 3): what each agent costs the API server. A cluster of `--services` Services
 * (`--swhs` of them SWH children), `--swhs` SWHs, `--nodes` simulated nodes with an agent each and
 * `--pods-per-node` pods per node (api-load-world.ts). Each agent talks to the API server through its own
 * ApiMeter, so requests, bytes and watch events are counted per agent at the client side. Phases:
 *   start-up   agents started until every endpoint is published ready;
 *   steady     `--steady-seconds` with nothing changing (targets: no requests besides watches and heartbeat);
 *   SWH change one SWH's probe timeout changed (target: an agent whose node is not involved pays at most the
 *              watch event itself), `--churn-seconds` window;
 *   pod added  one pod added on one node to a group, until its endpoint is ready in every SWH of the group,
 *              within the same window length.
 * Then RSS and metric series per agent, and the extrapolation to 5,000 nodes (docs/scaling.md).
 * Run: `./scripts/run bench api-load -- --nodes=4 --services=500 --swhs=100 --steady-seconds=60` (defaults are the
 * issue's sizes: 20 nodes, 20 pods per node, 5,000 Services, 1,000 SWHs, 600 s).
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, type V1EndpointSlice } from "@kubernetes/client-node";
import { GROUP, PLURAL, type ServiceWithHealthchecks, VERSION } from "@swh/crd-types";
import {
  type ApiMeter,
  type AppProcess,
  type Backend,
  installProduct,
  Product,
  parsePromText,
  readProcStats,
  startApiMeter,
} from "@swh/e2e";
import { createLogger, startInformer } from "@swh/kube";
import { clusterFromInfo, startControlPlane, waitFor } from "@swh/testenv";
import {
  EXTRAPOLATE_NODES,
  extrapolationRows,
  type PhaseFigures,
  phaseFigures,
  printPhase,
} from "./api-load-report.ts";
import { addPod, buildWorld, extraPodAddress, nodeName, SWH_NAMESPACE, swhName } from "./api-load-world.ts";
import { percentile, printFigures } from "./report.ts";

const shape = readFlags();
const progress = (message: string) =>
  process.stderr.write(`[api-load ${new Date().toISOString()}] ${message}\n`);
const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

const loadAtStart = loadavg();
const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
const product = new Product(cluster, { logLevel: "warn" });
const meters = new Map<string, ApiMeter>();
const backends: Backend[] = [];
const stopWatching = new AbortController();
try {
  await installProduct(cluster);
  const buildStart = performance.now();
  const world = await buildWorld(cluster, shape);
  backends.push(...world.backends);
  const buildSeconds = (performance.now() - buildStart) / 1000;
  progress(`world built in ${buildSeconds.toFixed(0)} s; starting the controller`);
  await product.startController();
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  await waitFor(
    "every SWH's Service created",
    async () => (await core.listNamespacedService({ namespace: SWH_NAMESPACE })).items.length === shape.swhs,
    { timeoutMs: 900_000, intervalMs: 2000 },
  );

  // The bench's own watch of the published slices: ready endpoints per Service.
  const discovery = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  const slices = startInformer<V1EndpointSlice>({
    kubeConfig: cluster.kubeConfig,
    name: "slices",
    path: `/apis/discovery.k8s.io/v1/namespaces/${SWH_NAMESPACE}/endpointslices`,
    list: () => discovery.listNamespacedEndpointSlice({ namespace: SWH_NAMESPACE }),
    logger: createLogger({ level: "warn" }),
    signal: stopWatching.signal,
  });
  await slices.synced();
  const readyEndpoints = () =>
    slices
      .list()
      .reduce((n, s) => n + (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length, 0);
  const swhsOfGroup = (g: number) =>
    Array.from({ length: shape.swhs }, (_, i) => i).filter((i) => i % world.groups === g);
  const expectedReady = Array.from(
    { length: world.groups },
    (_, g) => swhsOfGroup(g).length * world.podsInGroup(g),
  ).reduce((a, b) => a + b, 0);

  progress(`starting ${shape.nodes} agents, each behind its own API meter`);
  const agents = new Map<string, AppProcess>();
  const agentsStart = performance.now();
  await Promise.all(
    world.nodeNames.map(async (node) => {
      const meter = await startApiMeter({ server: cp.server, caPem: cp.caPem });
      meters.set(node, meter);
      agents.set(node, await product.startAgent(node, [], { via: meter.endpoint }));
    }),
  );
  const zero = { requests: {}, bytesReceived: 0, bytesSent: 0, watchEvents: {}, bookmarks: {} };
  await waitFor("every endpoint published ready", async () => readyEndpoints() === expectedReady, {
    timeoutMs: 1_800_000,
    intervalMs: 1000,
  });
  const startupSeconds = (performance.now() - agentsStart) / 1000;
  const usage = () => new Map([...meters].map(([node, m]) => [node, m.usage()]));
  const phase = (before: ReadonlyMap<string, ReturnType<ApiMeter["usage"]>>) => {
    const after = usage();
    return world.nodeNames.map((node) =>
      phaseFigures(node, before.get(node) ?? zero, after.get(node) ?? zero),
    );
  };
  const startup = phase(new Map());
  printPhase("start-up: agents started → every endpoint ready", startupSeconds, startup);

  // Warm-up: two probe periods, so every agent's first probe rounds and slice writes are behind it.
  await sleep(2 * shape.periodSeconds);
  progress(`steady window: ${shape.steadySeconds} s`);
  const steadyBefore = usage();
  await sleep(shape.steadySeconds);
  const steady = phase(steadyBefore);
  printPhase("steady state", shape.steadySeconds, steady);
  const rss = world.nodeNames.map((node) => readProcStats(agents.get(node)?.pid ?? 0).rssBytes / 2 ** 20);
  const series = await Promise.all(
    world.nodeNames.map(async (node) => parsePromText((await agents.get(node)?.metrics()) ?? "").length),
  );
  printFigures("per-agent resources at the end of the steady window (min / median / max)", [
    ["RSS (MB)", [0, 50, 100].map((p) => percentile(rss, p).toFixed(1)).join(" / ")],
    ["metric series", [0, 50, 100].map((p) => percentile(series, p)).join(" / ")],
  ]);

  // Churn 1: one SWH's probe timeout changes (group 0's nodes are involved).
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  const swhRef = {
    group: GROUP,
    version: VERSION,
    namespace: SWH_NAMESPACE,
    plural: PLURAL,
    name: swhName(0),
  };
  const changeBefore = usage();
  const current = (await custom.getNamespacedCustomObject(swhRef)) as ServiceWithHealthchecks;
  const probe = current.spec.healthcheck?.probes?.[0];
  if (probe === undefined) throw new Error(`${swhName(0)} has no probe`);
  // Longer by one second (the CEL rules want timeout ≤ period; the SWH change step needs a period ≥ timeout + 1).
  probe.timeoutSeconds = Math.min(shape.periodSeconds, shape.timeoutSeconds + 1);
  await custom.replaceNamespacedCustomObject({ ...swhRef, body: current });
  await sleep(shape.churnSeconds);
  const swhChange = phase(changeBefore);
  const swhInvolved = world.nodesOfGroup(0);
  printPhase(`one SWH changed (involved: ${[...swhInvolved].join(", ")})`, shape.churnSeconds, swhChange);

  // Churn 2: one pod added to group 0 on the first node.
  const podBefore = usage();
  const podStart = performance.now();
  backends.push(
    await addPod(cluster, { name: "pod-added", node: nodeName(0), group: 0, address: extraPodAddress(0) }),
  );
  // Seen on the added pod's own endpoint: other endpoints may flap meanwhile on a loaded machine.
  const addedReadyIn = (swh: string) =>
    slices
      .list()
      .some(
        (s) =>
          s.metadata?.labels?.["kubernetes.io/service-name"] === swh &&
          (s.endpoints ?? []).some(
            (e) => e.addresses.includes(extraPodAddress(0)) && e.conditions?.ready === true,
          ),
      );
  await waitFor(
    "the added pod ready in every SWH of its group",
    async () => swhsOfGroup(0).every((i) => addedReadyIn(swhName(i))),
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  const podReadySeconds = (performance.now() - podStart) / 1000;
  await sleep(Math.max(0, shape.churnSeconds - podReadySeconds));
  const podAdded = phase(podBefore);
  const podInvolved = new Set([nodeName(0)]);
  printPhase(
    `one pod added (involved: ${nodeName(0)}; ready everywhere after ${podReadySeconds.toFixed(1)} s)`,
    shape.churnSeconds,
    podAdded,
  );

  printFigures(
    `extrapolation to ${EXTRAPOLATE_NODES} nodes (per-agent means × agents; same object counts: ${shape.services} Services, ${shape.swhs} SWHs)`,
    extrapolationRows({
      steady,
      steadySeconds: shape.steadySeconds,
      startup,
      metricSeries: series,
      churn: [
        {
          name: "per SWH change",
          involved: swhInvolved.size,
          involvedNodes: swhInvolved,
          figures: swhChange,
        },
        { name: "per pod added", involved: 1, involvedNodes: podInvolved, figures: podAdded },
      ],
    }),
  );
  printFigures("run", [
    ["shape", JSON.stringify(shape)],
    ["world built (s)", buildSeconds.toFixed(0)],
    ["agents started → every endpoint ready (s)", startupSeconds.toFixed(0)],
    [
      "load average at start / end (1 min, 2 cores shared)",
      `${loadAtStart[0]?.toFixed(2)} / ${loadavg()[0]?.toFixed(2)}`,
    ],
  ]);
  checkTargets(steady, swhChange, swhInvolved);
} finally {
  stopWatching.abort();
  await product.stop();
  await Promise.all([...meters.values()].map((m) => m.close()));
  await Promise.all(backends.map((b) => b.close()));
  await cp.stop();
}

/** Prints whether the targets hold (the figures above are the evidence). */
function checkTargets(
  steady: readonly PhaseFigures[],
  change: readonly PhaseFigures[],
  involved: Set<string>,
): void {
  const steadyOther = Math.max(...steady.map((f) => f.otherTotal));
  const uninvolved = change.filter((f) => !involved.has(f.node));
  const changeOther =
    uninvolved.length === 0 ? "n/a" : String(Math.max(...uninvolved.map((f) => f.otherTotal)));
  const events = uninvolved.map((f) => f.watchEvents);
  printFigures("targets", [
    ["steady: most requests besides watches + heartbeat by one agent (target 0)", String(steadyOther)],
    ["SWH change: most requests besides watches + heartbeat by an uninvolved agent (target 0)", changeOther],
    [
      "SWH change: watch events per uninvolved agent min / max (target: the SWH's own events)",
      events.length === 0 ? "n/a (every node involved)" : `${Math.min(...events)} / ${Math.max(...events)}`,
    ],
  ]);
}

function readFlags() {
  const { values } = parseArgs({
    options: {
      nodes: { type: "string", default: "20" },
      "pods-per-node": { type: "string", default: "20" },
      services: { type: "string", default: "5000" },
      swhs: { type: "string", default: "1000" },
      "steady-seconds": { type: "string", default: "600" },
      "churn-seconds": { type: "string", default: "15" },
      "period-seconds": { type: "string", default: "10" },
      "timeout-seconds": { type: "string", default: "1" },
    },
  });
  const int = (flag: keyof typeof values) => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${flag}: want a whole number ≥ 1, got "${values[flag]}"`);
    return n;
  };
  return {
    nodes: int("nodes"),
    podsPerNode: int("pods-per-node"),
    services: int("services"),
    swhs: int("swhs"),
    steadySeconds: int("steady-seconds"),
    churnSeconds: int("churn-seconds"),
    periodSeconds: int("period-seconds"),
    timeoutSeconds: int("timeout-seconds"),
  };
}
