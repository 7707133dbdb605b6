/**
 * Benchmark (d) of issue 10: one agent with 100 pods × 3 ports × 2 SWHs (different probes, so 600 probe targets)
 * at a 10 s period: CPU (share of one core) and RSS of the agent process over a measured window after warm-up.
 * Targets: ≤ 5 % of one core, ≤ 120 MB RSS. SWH_BENCH_PODS, SWH_BENCH_PERIOD_S and SWH_BENCH_WINDOW_S change the
 * shape. Run: `./scripts/run bench agent-footprint`.
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { CoreV1Api } from "@kubernetes/client-node";
import { httpProbe, serviceWithHealthchecks, tcpProbe } from "@swh/crd-types";
import {
  hasEndpoint,
  installProduct,
  nodeFlags,
  Product,
  parsePromText,
  readEndpoints,
  readProcStats,
  sumSamples,
} from "@swh/e2e";
import { clusterFromInfo, createNode, createPod, startControlPlane, waitFor } from "@swh/testenv";
import { printFigures } from "./report.ts";

const PODS = Number(process.env.SWH_BENCH_PODS ?? 100);
const PERIOD_S = Number(process.env.SWH_BENCH_PERIOD_S ?? 10);
const WINDOW_S = Number(process.env.SWH_BENCH_WINDOW_S ?? 120);
const NS = "footprint";
const NODE = "footprint-node";

const cp = await startControlPlane();
const cluster = clusterFromInfo(cp);
// The agent runs with its image's Node flags (swh.nodeFlags); SWH_BENCH_NODE_ARGS adds more, e.g. "--v8-pool-size=1".
const nodeArgs = (process.env.SWH_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const product = new Product(cluster, { logLevel: "warn", nodeArgs });
const servers: Server[] = [];
try {
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: NODE, zone: "z" });
  await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  const addresses = Array.from(
    { length: PODS },
    (_, i) => `10.244.${60 + Math.floor(i / 200)}.${(i % 200) + 10}`,
  );
  for (const [i, address] of addresses.entries()) {
    const http = createHttpServer((_req, res) => res.end("ok"));
    const tcpA = createTcpServer((s) => s.on("error", () => s.destroy()).end());
    const tcpB = createTcpServer((s) => s.on("error", () => s.destroy()).end());
    for (const [server, port] of [
      [http, 8080],
      [tcpA, 2525],
      [tcpB, 9000],
    ] as const) {
      await new Promise<void>((resolve) => server.listen(port, address, resolve));
      servers.push(server as Server);
    }
    await createPod(cluster.kubeConfig, {
      name: `pod-${i}`,
      namespace: NS,
      node: NODE,
      ips: [address],
      labels: { app: "footprint" },
      containerPorts: [
        { name: "http", containerPort: 8080 },
        { name: "smtp", containerPort: 2525 },
        { name: "admin", containerPort: 9000 },
      ],
    });
  }
  const ports = [
    { name: "http", port: 80, targetPort: "http" },
    { name: "smtp", port: 25, targetPort: "smtp" },
    { name: "admin", port: 9000, targetPort: "admin" },
  ];
  const healthcheck = (probes: ReturnType<typeof tcpProbe>[]) => ({
    initialDelaySeconds: 0,
    periodSeconds: PERIOD_S,
    probes,
  });
  await cluster.apply(
    [
      serviceWithHealthchecks(
        { name: "a", namespace: NS },
        {
          selector: { app: "footprint" },
          ports,
          healthcheck: healthcheck([httpProbe("http"), tcpProbe("smtp"), tcpProbe("admin")]),
        },
      ),
      serviceWithHealthchecks(
        { name: "b", namespace: NS },
        {
          selector: { app: "footprint" },
          ports,
          healthcheck: healthcheck([
            httpProbe("http", { path: "/b" }),
            tcpProbe("smtp", { timeoutSeconds: 2 }),
            tcpProbe("admin", { timeoutSeconds: 2 }),
          ]),
        },
      ),
    ],
    { namespace: NS },
  );
  // The controller creates the Services the agent publishes for (ADR 0014), then leaves the window to the agent.
  const controller = await product.startController();
  const agent = await product.startAgent(NODE);
  await waitFor(
    "every endpoint published ready",
    async () => {
      const rows = await readEndpoints(cluster.kubeConfig, NS);
      return (
        rows.length === PODS * 3 * 2 && rows.every((r) => r.ready) && hasEndpoint(rows, "a", "pod-0", true)
      );
    },
    { timeoutMs: 180_000, intervalMs: 1000 },
  );
  await controller.stop();
  // Warm-up: two full periods, then measure.
  await new Promise((r) => setTimeout(r, 2 * PERIOD_S * 1000));
  const before = readProcStats(agent.pid);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const after = readProcStats(agent.pid);
  const seconds = (performance.now() - started) / 1000;
  const metrics = parsePromText(await agent.metrics());
  const mb = (name: string, where: Record<string, string> = {}) =>
    (sumSamples(metrics, name, where) / 2 ** 20).toFixed(1);
  printFigures(
    `agent footprint: ${PODS} pods × 3 ports × 2 SWHs, period ${PERIOD_S} s, window ${WINDOW_S} s`,
    [
      ["node flags", [...nodeFlags("agent"), ...nodeArgs].join(" ") || "(none)"],
      ["probe targets", String(PODS * 3 * 2)],
      ["CPU (% of one core)", (((after.cpuSeconds - before.cpuSeconds) / seconds) * 100).toFixed(2)],
      ["RSS at the end (MB)", (after.rssBytes / 2 ** 20).toFixed(1)],
      ["peak RSS (MB)", (after.peakRssBytes / 2 ** 20).toFixed(1)],
      [
        "V8 heap used / total (MB)",
        `${mb("nodejs_heap_size_used_bytes")} / ${mb("nodejs_heap_size_total_bytes")}`,
      ],
      ["external memory (MB)", mb("nodejs_external_memory_bytes")],
    ],
  );
} finally {
  await product.stop();
  for (const s of servers) s.close();
  await cp.stop();
}
