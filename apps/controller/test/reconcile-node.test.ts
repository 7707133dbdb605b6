import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { createLogger, WrittenObjects } from "@swh/kube";
import { createControllerMetrics } from "@swh/metrics";
import { agentLeaseName } from "@swh/node-liveness";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ControllerApi, ReconcileIo } from "../src/internal/controller-api.js";
import { type LeaderTerm, recordNodeReport } from "../src/internal/leader-term.js";
import { type NodeFacts, reconcileNode } from "../src/internal/reconcile-node.js";
import { aLease, aNode, aSlice } from "./builders.js";
import { indexed } from "./indexed.js";

const LONG = `worker-${"a".repeat(30)}.zone-b.cluster.example.internal`;

/**
 * A node world: what the caches hold, what a live GET answers, and the calls the reconcile makes. `reconcile`
 * runs one reconcile over the facts read from it and records the reports in the term, as the node worker does.
 */
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
  const term: LeaderTerm = {
    since: new Date(opts.leadingSince ?? "2026-12-02T09:00:00Z"),
    signal: new AbortController().signal,
    writtenStatus: new WrittenObjects(),
    staleNodes: new Set(),
    notReadyNodes: new Set(),
  };
  const facts = (name: string): NodeFacts => ({
    name,
    node: opts.cached,
    lease: opts.lease?.metadata?.name === agentLeaseName(name) ? opts.lease : undefined,
    slices: name === node ? slices : [],
    reported: { heartbeatStale: term.staleNodes.has(name), notReadyAgentAlive: term.notReadyNodes.has(name) },
    leadingSince: term.since,
    now: new Date("2026-12-02T10:10:00Z"),
    notReadyGraceMs: 5 * 60_000,
  });
  const io = {
    api,
    events: { record: (_o, type, reason) => void recorded.push(`${type}/${reason}`) },
    metrics: createControllerMetrics(new Registry(), "test"),
    logger: createLogger({ level: "error" }),
    signal: new AbortController().signal,
  } satisfies ReconcileIo;
  const requeued: string[] = [];
  const reconcile = async (name: string) => {
    const outcome = await reconcileNode(facts(name), io);
    recordNodeReport(term, name, outcome.report);
    requeued.push(...outcome.requeueSwhs);
    return outcome.result;
  };
  return { reconcile, term, io, calls, recorded, requeued, node, swhKeys: slices.map((x) => x.swhKey) };
}

describe("reconcileNode", () => {
  it("deletes the slices of a Node missing from the cache only after a live GET answers 404", async () => {
    const w = world({ live: undefined, node: LONG });
    await w.reconcile(LONG);
    expect(w.calls).toEqual([`get ${LONG}`, "delete s"]);
  });

  it("keeps the slices when the live GET fails or finds the Node (a cache behind is not proof)", async () => {
    const failed = world({ live: Object.assign(new Error("timeout"), { code: 503 }) });
    expect(await failed.reconcile("n1")).toEqual({ requeueAfterMs: expect.any(Number) });
    expect(failed.calls).toEqual(["get n1"]);

    const found = world({ live: aNode("n1", "True"), lease: aLease("2026-12-02T10:09:50Z", 40) });
    await found.reconcile("n1");
    expect(found.calls).toEqual(["get n1"]);
  });

  it("keeps and reports the slices of a NotReady node whose agent renews its heartbeat", async () => {
    const w = world({
      cached: aNode("n1", "False", "2026-12-02T10:00:00Z"),
      live: undefined,
      lease: aLease("2026-12-02T10:09:50Z", 40),
    });
    await w.reconcile("n1");
    expect(w.calls).toEqual([]);
    expect(w.term.notReadyNodes).toEqual(new Set(["n1"]));
    expect(w.recorded).toEqual(["Warning/NodeNotReadyAgentAlive"]);
    expect(await w.io.metrics.notReadyAgentAlive.get()).toMatchObject({
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
    await w.reconcile(node);
    expect(w.term.staleNodes).toEqual(new Set());
    const impostor = world({
      cached: aNode("n1", "True"),
      live: undefined,
      // A fresh Lease with this node's Lease name but another holder is not this node's heartbeat.
      lease: (() => {
        const lease = aLease("2026-12-02T10:09:50Z", 40, "n1");
        return { ...lease, spec: { ...lease.spec, holderIdentity: "n2" } };
      })(),
    });
    await impostor.reconcile("n1");
    expect(impostor.term.staleNodes).toEqual(new Set(["n1"]));
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
      expect(await w.reconcile("n1")).toEqual(result);
      expect(w.term.staleNodes).toEqual(new Set(stale));
    },
  );

  it("asks for its SWHs' reconciles when a report changes, and not again while it stays", async () => {
    const w = world({ cached: aNode("n1", "True"), live: undefined, sliceCreated: "2026-12-02T10:09:00Z" });
    await w.reconcile("n1");
    expect(w.term.staleNodes).toEqual(new Set(["n1"]));
    expect(w.requeued).toEqual(w.swhKeys);
    await w.reconcile("n1");
    expect(w.requeued).toEqual(w.swhKeys);
  });
});
