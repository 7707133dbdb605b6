import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { createLogger } from "@swh/kube";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ControllerApi } from "../src/internal/controller-api.js";
import { createControllerMetrics } from "../src/internal/controller-metrics.js";
import { type NodeReconcileDeps, reconcileNode } from "../src/internal/reconcile-node.js";
import { aLease, aNode, aSlice } from "./builders.js";
import { indexed } from "./indexed.js";

const LONG = `worker-${"a".repeat(30)}.zone-b.cluster.example.internal`;

/** A node world: what the caches hold, what a live GET answers, and the calls the reconcile makes. */
function world(opts: {
  cached?: V1Node;
  live: V1Node | undefined | Error;
  lease?: V1Lease;
  node?: string;
  leadingSince?: string;
  sliceCreated?: string;
}) {
  const node = opts.node ?? "n1";
  const calls: string[] = [];
  const recorded: string[] = [];
  const api: ControllerApi = {
    createService: async () => ({}),
    replaceService: async () => ({}),
    patchStatus: async () => "1",
    deleteSlice: async (_ns, name) => {
      calls.push(`delete ${name}`);
    },
    readNode: async (name) => {
      calls.push(`get ${name}`);
      if (opts.live instanceof Error) throw opts.live;
      return opts.live;
    },
  };
  const built = aSlice({ name: "s", node, endpoints: [{ address: "10.244.0.1" }] });
  const slice =
    opts.sliceCreated === undefined
      ? built
      : { ...built, metadata: { ...built.metadata, creationTimestamp: new Date(opts.sliceCreated) } };
  const slices = indexed([slice]);
  const deps: NodeReconcileDeps = {
    getNode: () => opts.cached,
    getLease: (name) => (opts.lease?.metadata?.name === name ? opts.lease : undefined),
    slicesOnNode: (n) => (n === node ? slices : []),
    staleNodes: new Set(),
    notReadyNodes: new Set(),
    enqueueSwh: () => {},
    signal: new AbortController().signal,
    api,
    events: { record: (_o, type, reason) => void recorded.push(`${type}/${reason}`) },
    metrics: createControllerMetrics(new Registry(), "test"),
    logger: createLogger({ level: "error" }),
    now: () => new Date("2026-12-02T10:10:00Z"),
    leadingSince: new Date(opts.leadingSince ?? "2026-12-02T09:00:00Z"),
    notReadyGraceMs: 5 * 60_000,
  };
  return { deps, calls, recorded, node };
}

describe("reconcileNode", () => {
  it("deletes the slices of a Node missing from the cache only after a live GET answers 404", async () => {
    const w = world({ live: undefined, node: LONG });
    await reconcileNode(LONG, w.deps);
    expect(w.calls).toEqual([`get ${LONG}`, "delete s"]);
  });

  it("keeps the slices when the live GET fails or finds the Node (a cache behind is not proof)", async () => {
    const failed = world({ live: Object.assign(new Error("timeout"), { code: 503 }) });
    expect(await reconcileNode("n1", failed.deps)).toEqual({ requeueAfterMs: expect.any(Number) });
    expect(failed.calls).toEqual(["get n1"]);

    const found = world({ live: aNode("n1", "True"), lease: aLease("2026-12-02T10:09:50Z", 40) });
    await reconcileNode("n1", found.deps);
    expect(found.calls).toEqual(["get n1"]);
  });

  it("keeps and reports the slices of a NotReady node whose agent renews its heartbeat", async () => {
    const w = world({
      cached: aNode("n1", "False", "2026-12-02T10:00:00Z"),
      live: undefined,
      lease: aLease("2026-12-02T10:09:50Z", 40),
    });
    await reconcileNode("n1", w.deps);
    expect(w.calls).toEqual([]);
    expect(w.deps.notReadyNodes).toEqual(new Set(["n1"]));
    expect(w.recorded).toEqual(["Warning/NodeNotReadyAgentAlive"]);
    expect(await w.deps.metrics.notReadyAgentAlive.get()).toMatchObject({
      values: [{ labels: { node: "n1" }, value: 1 }],
    });
  });

  it("finds the heartbeat of a node with a 253-character name by the Lease that names it in full", async () => {
    const node = [`${"b".repeat(63)}`, `${"c".repeat(63)}`, `${"d".repeat(63)}`, `${"e".repeat(61)}`].join(
      ".",
    );
    const w = world({
      cached: aNode(node, "True"),
      live: undefined,
      lease: aLease("2026-12-02T10:09:50Z", 40, node),
      node,
    });
    await reconcileNode(node, w.deps);
    expect(w.deps.staleNodes).toEqual(new Set());
    const impostor = world({
      cached: aNode("n1", "True"),
      live: undefined,
      // A fresh Lease with this node's Lease name but another holder is not this node's heartbeat.
      lease: (() => {
        const lease = aLease("2026-12-02T10:09:50Z", 40, "n1");
        return { ...lease, spec: { ...lease.spec, holderIdentity: "n2" } };
      })(),
    });
    await reconcileNode("n1", impostor.deps);
    expect(impostor.deps.staleNodes).toEqual(new Set(["n1"]));
  });

  it.each([
    [
      "a new agent's first slice 2 s ago",
      { sliceCreated: "2026-12-02T10:09:58Z" },
      [],
      { requeueAfterMs: 39_000 },
    ],
    ["a leader for 10 s", { leadingSince: "2026-12-02T10:09:50Z" }, [], { requeueAfterMs: 31_000 }],
    [
      "an agent silent since its slice a minute ago",
      { sliceCreated: "2026-12-02T10:09:00Z" },
      ["n1"],
      undefined,
    ],
  ])(
    "reports a node without a heartbeat Lease as stale only after a Lease duration: %s",
    async (_name, since, stale, result) => {
      const w = world({ cached: aNode("n1", "True"), live: undefined, ...since });
      expect(await reconcileNode("n1", w.deps)).toEqual(result);
      expect(w.deps.staleNodes).toEqual(new Set(stale));
    },
  );
});
