/**
 * Where traffic to each balancer goes, for the demo: per SWH port, requests to its ClusterIP counted per pod, next
 * to the endpoint table. kube-proxy applies a slice change a moment after the agents wrote it, so a measurement is
 * repeated until it agrees with the table (or a deadline passes, shown as such).
 */
import type { EndpointRow } from "./endpoint-table.js";
import { countHttp, countTcp, formatCount, type TrafficCount } from "./traffic.js";

/** One port of a SWH as a client reaches it. */
export interface BalancerPort {
  swh: string;
  /** The Service port's name, to match the table's rows of a multi-port SWH; all rows of the SWH when omitted. */
  portName?: string;
  port: number;
  protocol: "http" | "tcp";
  clusterIP: string;
}

/** A measurement of one balancer port, and how long kube-proxy took to agree with the table. */
export interface BalancerTraffic {
  balancer: BalancerPort;
  count: TrafficCount;
  agrees: boolean;
  /** Measurements taken until it agreed (1: kube-proxy had already applied the table). */
  attempts: number;
  waitedMs: number;
}

const AGREE_TIMEOUT_MS = 10_000;

/**
 * Sends `requests` requests to every balancer port; repeats a measurement while it reaches a pod the table does not
 * list as ready for that SWH or misses a ready one (kube-proxy has not synced yet), until `AGREE_TIMEOUT_MS`.
 */
export async function measureBalancers(
  balancers: readonly BalancerPort[],
  rows: readonly EndpointRow[],
  requests: number,
): Promise<BalancerTraffic[]> {
  const out: BalancerTraffic[] = [];
  for (const balancer of balancers) {
    const ready = new Set(
      rows
        .filter((r) => r.swh === balancer.swh && r.ready)
        .filter((r) => balancer.portName === undefined || r.port.startsWith(`${balancer.portName}/`))
        .map((r) => r.pod),
    );
    const started = performance.now();
    for (let attempts = 1; ; attempts++) {
      const count =
        balancer.protocol === "http"
          ? await countHttp(balancer.clusterIP, balancer.port, requests)
          : await countTcp(balancer.clusterIP, balancer.port, requests);
      const reached = Object.keys(count.byPod);
      const agrees =
        count.failed === 0 &&
        reached.every((p) => ready.has(p)) &&
        [...ready].every((p) => reached.includes(p));
      const waitedMs = Math.round(performance.now() - started);
      if (agrees || waitedMs > AGREE_TIMEOUT_MS) {
        out.push({ balancer, count, agrees, attempts, waitedMs });
        break;
      }
    }
  }
  return out;
}

/** "traffic  web   10.96.0.10:80  (50 HTTP requests)  mail-0 25, mail-1 25" lines. */
export function renderBalancerTraffic(measured: readonly BalancerTraffic[]): string {
  return measured
    .map(({ balancer: b, count, agrees, attempts, waitedMs }) => {
      const target = `${b.clusterIP}:${b.port}`;
      const what = `(${count.total} ${b.protocol.toUpperCase()} ${b.protocol === "http" ? "requests" : "connections"})`;
      const seconds = (waitedMs / 1000).toFixed(1);
      const note = !agrees
        ? `  ← does not match the table after ${seconds} s`
        : attempts > 1
          ? `  (matched the table after ${attempts} measurements, ${seconds} s)`
          : "";
      return `traffic  ${b.swh.padEnd(5)} ${target.padEnd(16)} ${what.padEnd(22)} ${formatCount(count)}${note}`;
    })
    .join("\n");
}
