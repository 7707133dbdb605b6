import { CoordinationV1Api } from "@kubernetes/client-node";
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { renewHeartbeat, runHeartbeat } from "../src/index.js";
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

// A 253-character holder (the longest node name): the Lease name is the caller's, the identity is kept whole.
const LONG_NODE = `${"n".repeat(61)}.${"o".repeat(63)}.${"d".repeat(63)}.${"e".repeat(63)}`;

/** A Lease time (a Date, or the MicroTime string) in milliseconds. */
const ms = (time: Date | string | undefined) => (time === undefined ? Number.NaN : new Date(time).getTime());

describe("runHeartbeat against a real API server", () => {
  it("creates the Lease with the given name and holder, then keeps renewing it", async () => {
    const namespace = await cluster.createNamespace("hb");
    const stop = new AbortController();
    stops.push(stop);
    const done = runHeartbeat({
      kubeConfig: cluster.kubeConfig,
      namespace,
      name: "agent-node-a",
      holderIdentity: LONG_NODE,
      intervalMs: 200,
      leaseDurationSeconds: 40,
      logger: memoryLogger(),
      signal: stop.signal,
    });
    const first = await waitFor("lease created", () =>
      leases.readNamespacedLease({ namespace, name: "agent-node-a" }).catch(() => undefined),
    );
    expect(first.spec).toMatchObject({ holderIdentity: LONG_NODE, leaseDurationSeconds: 40 });
    const renewed = await waitFor("lease renewed", async () => {
      const lease = await leases.readNamespacedLease({ namespace, name: "agent-node-a" });
      return lease.metadata?.resourceVersion !== first.metadata?.resourceVersion ? lease : undefined;
    });
    expect(ms(renewed.spec?.renewTime)).toBeGreaterThan(ms(first.spec?.renewTime));
    // Renewals keep when the Lease was first taken.
    expect(ms(renewed.spec?.acquireTime)).toBe(ms(first.spec?.acquireTime));
    stop.abort();
    await done;
  });

  it("re-creates a deleted Lease and takes back one whose holder was changed", async () => {
    const namespace = await cluster.createNamespace("hb");
    const api = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const opts = { namespace, name: "agent-x", holderIdentity: "node-x", leaseDurationSeconds: 40 };
    await renewHeartbeat(api, opts);
    const lease = await leases.readNamespacedLease({ namespace, name: "agent-x" });
    await leases.replaceNamespacedLease({
      namespace,
      name: "agent-x",
      body: { ...lease, spec: { ...lease.spec, holderIdentity: "someone-else", leaseTransitions: 3 } },
    });
    await renewHeartbeat(api, opts);
    const taken = await leases.readNamespacedLease({ namespace, name: "agent-x" });
    expect(taken.spec).toMatchObject({ holderIdentity: "node-x", leaseTransitions: 3 });
    await leases.deleteNamespacedLease({ namespace, name: "agent-x" });
    await renewHeartbeat(api, opts);
    expect((await leases.readNamespacedLease({ namespace, name: "agent-x" })).spec?.holderIdentity).toBe(
      "node-x",
    );
  });
});
