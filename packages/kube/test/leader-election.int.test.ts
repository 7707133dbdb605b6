import { CoordinationV1Api } from "@kubernetes/client-node";
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { Registry } from "prom-client";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKubeMetrics, type LeaderElectionOptions, runLeaderElection } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

let cluster: TestCluster;
let leases: CoordinationV1Api;
const stops: AbortController[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
});
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

/** Starts one elector and records its leadership changes in the shared `log`. */
function elector(
  identity: string,
  namespace: string,
  log: string[],
  extra: Partial<LeaderElectionOptions> = {},
) {
  const stop = new AbortController();
  stops.push(stop);
  const registry = new Registry();
  const metrics = createKubeMetrics(registry);
  let workSignal: AbortSignal | undefined;
  const done = runLeaderElection({
    kubeConfig: cluster.kubeConfig,
    namespace,
    name: "leader",
    identity,
    // Short periods keep the test quick; the 15/10/2 defaults have the same ratios.
    leaseDurationSeconds: 4,
    renewDeadlineSeconds: 3,
    retryPeriodSeconds: 1,
    onStartedLeading: (signal) => {
      workSignal = signal;
      log.push(`${identity} started`);
    },
    onStoppedLeading: () => log.push(`${identity} stopped`),
    signal: stop.signal,
    logger: memoryLogger(),
    metrics,
    ...extra,
  });
  const leaderGauge = async () => (await metrics.leader.get()).values[0]?.value;
  return { stop, done, leaderGauge, workSignal: () => workSignal };
}

const leaders = (log: string[]) => {
  // Replays the log: how many electors considered themselves leader after each entry.
  const current = new Set<string>();
  let max = 0;
  for (const entry of log) {
    const [who, what] = entry.split(" ");
    if (what === "started") current.add(who ?? "");
    else current.delete(who ?? "");
    max = Math.max(max, current.size);
  }
  return { current: [...current], max };
};

async function holder(namespace: string) {
  return (await leases.readNamespacedLease({ name: "leader", namespace })).spec?.holderIdentity ?? "";
}

describe("runLeaderElection against a real API server", () => {
  it("only one of two electors leads; stopping it hands over to the other, which is the Lease holder", async () => {
    const namespace = await cluster.createNamespace("le");
    const log: string[] = [];
    const a = elector("a", namespace, log);
    const b = elector("b", namespace, log);
    await waitFor("a leader", () => log.length > 0);
    const first = log[0]?.split(" ")[0] ?? "";
    const [firstE, secondE, second] = first === "a" ? [a, b, "b"] : [b, a, "a"];
    expect(await firstE.leaderGauge()).toBe(1);
    expect(await secondE.leaderGauge()).toBe(0);
    expect(await holder(namespace)).toBe(first);

    firstE.stop.abort();
    await firstE.done;
    await waitFor("the other leads", () => log.includes(`${second} started`));
    expect(log).toEqual([`${first} started`, `${first} stopped`, `${second} started`]);
    expect(firstE.workSignal()?.aborted).toBe(true);
    expect(await holder(namespace)).toBe(second);
    expect(leaders(log).max).toBe(1);
  });

  it("a leader that dies without releasing is replaced once its Lease expires", async () => {
    const namespace = await cluster.createNamespace("le");
    const log: string[] = [];
    const a = elector("a", namespace, log, { releaseOnCancel: false });
    await waitFor("a leads", () => log.includes("a started"));
    const b = elector("b", namespace, log);
    a.stop.abort(); // like a crash: nobody releases the Lease
    await a.done;
    expect(await holder(namespace)).toBe("a");
    await waitFor("b takes over after expiry", () => log.includes("b started"));
    expect(log).toEqual(["a started", "a stopped", "b started"]);
    expect(await holder(namespace)).toBe("b");
    b.stop.abort();
    await b.done;
  });

  it("stops work at once when another holder takes the Lease", async () => {
    const namespace = await cluster.createNamespace("le");
    const log: string[] = [];
    const a = elector("a", namespace, log);
    await waitFor("a leads", () => log.includes("a started"));
    const lease = await leases.readNamespacedLease({ name: "leader", namespace });
    await leases.replaceNamespacedLease({
      name: "leader",
      namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: "intruder" } },
    });
    await waitFor("a stops leading", () => log.includes("a stopped"));
    expect(a.workSignal()?.aborted).toBe(true);
    expect(await a.leaderGauge()).toBe(0);
    expect(await holder(namespace)).toBe("intruder");
  });
});
