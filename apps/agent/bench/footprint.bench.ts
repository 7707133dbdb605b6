/**
 * Memory and CPU of the agent bundle as a child process, sampled from its own /metrics while it probes
 * PODS pods × 3 ports × 2 SWHs (600 targets by default) at PERIOD_S: RSS, V8 heap used and total, over time.
 * Separates "the heap grows" (retention) from "RSS is high" (allocator/GC headroom).
 * Run (inside the network namespace, from the repo root):
 *   SWH_BIN_DIR=... bash scripts/netns.sh pnpm --filter @swh/agent bench
 * Env: SWH_BENCH_PODS (100), SWH_BENCH_PERIOD_S (10), SWH_BENCH_WINDOW_S (90), SWH_BENCH_NODE_ARGS (e.g.
 * "--max-old-space-size=64", passed to the agent's node).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { CoreV1Api } from "@kubernetes/client-node";
import { clusterFromInfo, createNode, createPod, startControlPlane, waitFor } from "@swh/testenv";
import { it } from "vitest";
import { agentKubeConfig, clients, INSTALL_NAMESPACE, installAgent } from "../test/support/harness.js";

const PODS = Number(process.env.SWH_BENCH_PODS ?? 100);
const PERIOD_S = Number(process.env.SWH_BENCH_PERIOD_S ?? 10);
const WINDOW_S = Number(process.env.SWH_BENCH_WINDOW_S ?? 90);
const NODE_ARGS = (process.env.SWH_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const NS = "footprint";
const NODE = "footprint-node";

it("agent footprint", { timeout: 900_000 }, async () => {
  const cp = await startControlPlane();
  const cluster = clusterFromInfo(cp);
  const servers: Server[] = [];
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await installAgent(cluster);
    const admin = clients(cluster.kubeConfig);
    await createNode(cluster.kubeConfig, { name: NODE, zone: "z" });
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
    for (let i = 0; i < PODS; i++) {
      const ip = `10.244.${200 + Math.floor(i / 200)}.${(i % 200) + 1}`;
      for (const port of [8080, 8081, 8082]) {
        const server = createServer((s) => {
          s.on("error", () => {}); // a TCP probe closes without reading: a reset here is expected
          s.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        });
        await new Promise<void>((resolve) => server.listen(port, ip, resolve));
        servers.push(server);
      }
      await createPod(cluster.kubeConfig, {
        name: `p${i}`,
        namespace: NS,
        node: NODE,
        ips: [ip],
        labels: { app: "web" },
      });
    }
    const ports = [8080, 8081, 8082].map((p) => ({ name: `p${p}`, port: p, targetPort: p }));
    await admin.createSwh(NS, "tcp", {
      selector: { app: "web" },
      ports,
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: PERIOD_S,
        probes: ports.map((p) => ({ mode: "TCP", tcp: { targetPort: p.port } })),
      },
    });
    await admin.createSwh(NS, "http", {
      selector: { app: "web" },
      ports,
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: PERIOD_S,
        probes: ports.map((p) => ({ mode: "HTTP", http: { targetPort: p.port, path: "/" } })),
      },
    });
    const { path } = await agentKubeConfig(cluster);
    child = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        new URL("../dist/main.mjs", import.meta.url).pathname,
        `--kubeconfig=${path}`,
        "--metrics-bind-address=127.0.0.1:18080",
        "--health-bind-address=0",
        "--log-level=warn",
      ],
      {
        env: { PATH: process.env.PATH ?? "", NODE_NAME: NODE, POD_NAMESPACE: INSTALL_NAMESPACE },
        stdio: "inherit",
      },
    );
    const metrics = async () => {
      const text = await (await fetch("http://127.0.0.1:18080/metrics")).text();
      const get = (name: string) =>
        Number(new RegExp(`^${name} ([0-9.e+]+)`, "m").exec(text)?.[1] ?? Number.NaN);
      return {
        rssMB: get("process_resident_memory_bytes") / 2 ** 20,
        heapUsedMB: get("nodejs_heap_size_used_bytes") / 2 ** 20,
        heapTotalMB: get("nodejs_heap_size_total_bytes") / 2 ** 20,
        externalMB: get("nodejs_external_memory_bytes") / 2 ** 20,
        cpuS: get("process_cpu_seconds_total"),
        targets: get("swh_probe_targets"),
        ready: Number(
          /swh_endpoints\{namespace="footprint",service="http",state="ready"\} (\d+)/.exec(text)?.[1] ?? 0,
        ),
      };
    };
    const started = performance.now();
    await waitFor(
      "all endpoints ready",
      async () => {
        const m = await metrics().catch(() => undefined);
        if (m) {
          const t = ((performance.now() - started) / 1000).toFixed(0);
          console.log(
            `converging t=${t}s rss=${m.rssMB.toFixed(1)}MB heapTotal=${m.heapTotalMB.toFixed(1)}MB ready=${m.ready}`,
          );
        }
        return m?.ready === PODS * 3;
      },
      { timeoutMs: 180_000, intervalMs: 2000 },
    );
    const start = await metrics();
    const t0 = performance.now();
    for (let t = 0; t < WINDOW_S; t += 15) {
      await new Promise((r) => setTimeout(r, 15_000));
      const m = await metrics();
      console.log(
        `t=${t + 15}s rss=${m.rssMB.toFixed(1)}MB heapUsed=${m.heapUsedMB.toFixed(1)}MB heapTotal=${m.heapTotalMB.toFixed(1)}MB external=${m.externalMB.toFixed(1)}MB targets=${m.targets}`,
      );
    }
    const end = await metrics();
    const cpu = ((end.cpuS - start.cpuS) / ((performance.now() - t0) / 1000)) * 100;
    console.log(
      `targets=${end.targets} cpu=${cpu.toFixed(2)}% of one core rss=${end.rssMB.toFixed(1)}MB heapUsed=${end.heapUsedMB.toFixed(1)}MB`,
    );
  } finally {
    child?.kill("SIGTERM");
    for (const s of servers) s.close();
    await cp.stop();
  }
});
