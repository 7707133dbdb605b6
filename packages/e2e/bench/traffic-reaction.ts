/**
 * The traffic half of the reaction benchmark (issue 22): with a real kube-proxy (iptables mode) routing the SWH's
 * ClusterIP and a client sending a request every few ms through it, each on a new connection, how long after the
 * backend fails does traffic still reach it? Measured per failing transition from the same start as the slice
 * figure (the first probe answered in the failing state, so the threshold wait is excluded) to the last client
 * request the backend received, and split at the slice showing not-ready and at kube-proxy finishing the rule sync
 * that carried it. kube-proxy rate-limits its syncs (`minSyncPeriod`), so the phase runs once per value given.
 */

import { streamTraffic } from "@swh/e2e";
import { startKubeProxy, type TestCluster } from "@swh/testenv";
import { percentile } from "./report.ts";
import type { ReadinessWatch } from "./watch-readiness.ts";

/** The flipping backend as this phase drives and observes it (times are `performance.now()`). */
export interface FlipTarget {
  /** Switches the backend; the next probe answer in the new state sets `probeChangedAt`. */
  setHealthy(healthy: boolean): void;
  /** When the first probe was answered in the current state; undefined until then. */
  probeChangedAt(): number | undefined;
  /** When the backend last received a request from the client (through kube-proxy). */
  lastClientRequestAt(): number;
}

/** Options of {@link measureTrafficReaction}. */
export interface TrafficReactionOptions {
  cluster: TestCluster;
  /** The Node kube-proxy stands for (must have an InternalIP). */
  node: string;
  clusterIP: string;
  port: number;
  target: FlipTarget;
  published: ReadinessWatch;
  /** kube-proxy's `minSyncPeriod`, e.g. "1s" (its default) or "0s". */
  minSyncPeriod: string;
  /** Failing transitions to measure (each followed by a recovery). */
  flips: number;
  /** The client's request interval in ms: the resolution of "the last request". */
  everyMs: number;
}

/** Figures of one phase, in ms (p50 / p99 / max as `[name, value]` rows for `printFigures`). */
export type Figures = [string, string][];

const STEP_TIMEOUT_MS = 15_000;
/** A request sent just before the sync may still be connecting; it is given this long to arrive. */
const DRAIN_MS = 100;

/** Runs the phase with its own kube-proxy (stopped at the end) and returns its figures. */
export async function measureTrafficReaction(o: TrafficReactionOptions): Promise<Figures> {
  const proxy = await startKubeProxy(o.cluster, {
    node: o.node,
    mode: "iptables",
    minSyncPeriod: o.minSyncPeriod,
  });
  const stream = streamTraffic(o.clusterIP, o.port, "http", o.everyMs);
  const toLast: number[] = [];
  const toSlice: number[] = [];
  const sliceToSync: number[] = [];
  const syncToLast: number[] = [];
  try {
    await clientReaches(o.target, performance.now());
    for (let i = 0; i < o.flips; i++) {
      o.target.setHealthy(false);
      const sliceAt = await o.published.until(false, STEP_TIMEOUT_MS);
      const failedAt = o.target.probeChangedAt();
      if (failedAt === undefined)
        throw new Error("slice changed before the backend answered a probe failing");
      // The only object changing is our slice, and the recovery's sync finished before this flip (traffic came
      // back): the first sync that ends after the failure is the one that withdrew the endpoint.
      const syncAt = toPerf(await waitForSyncAfter(() => proxy.lastSyncMs(), toWall(failedAt)));
      await delay(DRAIN_MS);
      const lastAt = o.target.lastClientRequestAt();
      toLast.push(Math.max(0, lastAt - failedAt));
      toSlice.push(sliceAt - failedAt);
      sliceToSync.push(syncAt - sliceAt);
      syncToLast.push(lastAt - syncAt);
      o.target.setHealthy(true);
      const recoveredAt = await o.published.until(true, STEP_TIMEOUT_MS);
      await clientReaches(o.target, recoveredAt);
      await delay(Math.random() * 300);
    }
  } finally {
    const seen = await stream.stop();
    await proxy.stop();
    process.stdout.write(
      `kube-proxy minSyncPeriod ${o.minSyncPeriod}: ${seen.total} client requests, ${seen.failed} not 2xx ` +
        `(${seen.failures.join(", ")})\n`,
    );
  }
  const row = (name: string, values: number[]): [string, string] => [
    `minSyncPeriod ${o.minSyncPeriod}: ${name} p50 / p99 / max (ms)`,
    [percentile(values, 50), percentile(values, 99), Math.max(...values)]
      .map((v) => v.toFixed(1))
      .join(" / "),
  ];
  return [
    [`minSyncPeriod ${o.minSyncPeriod}: failing transitions`, String(toLast.length)],
    row("backend failing → last request reaching it", toLast),
    row("backend failing → slice not-ready", toSlice),
    row("slice not-ready → kube-proxy rules synced", sliceToSync),
    row("rules synced → last request (negative: before)", syncToLast),
  ];
}

/** Resolves once the client's traffic reaches the backend after `since`. */
async function clientReaches(target: FlipTarget, since: number): Promise<void> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  while (target.lastClientRequestAt() <= since) {
    if (performance.now() > deadline) throw new Error("client traffic did not reach the backend");
    await delay(5);
  }
}

/** Polls kube-proxy until its last rule sync ended at or after `wallMs`; returns that sync's time. */
async function waitForSyncAfter(lastSyncMs: () => Promise<number>, wallMs: number): Promise<number> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const at = await lastSyncMs();
    if (at >= wallMs) return at;
    if (performance.now() > deadline) throw new Error("kube-proxy did not sync after the backend failed");
    await delay(5);
  }
}

const toWall = (perfMs: number) => performance.timeOrigin + perfMs;
const toPerf = (wallMs: number) => wallMs - performance.timeOrigin;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
