/**
 * One reconcile of one node (key = the node's full name), in order: read (`readNodeFacts`: the Node, its agent's
 * heartbeat Lease and its slices from the caches, what the term reported so far) → decide (`nodeCleanupFacts` and
 * `planNodeCleanup`, pure; again with a live GET when the cache says the Node is gone) → write (delete the slices
 * of a deleted or long-NotReady node whose agent is silent) → report (`swh_agent_heartbeat_stale`,
 * `swh_node_not_ready_agent_alive`, a Warning Event on the Node, log lines). The new reports and the SWHs whose
 * status they change are returned; the worker hands them to the term and the SWH queue.
 */
import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { EVENT_REASONS } from "@swh/crd-types";
import { describeApiError, type WorkResult } from "@swh/kube";
import { recordNodeGauges } from "@swh/metrics";
import {
  agentLeaseName,
  type LiveNode,
  type NodeDecision,
  nodeCleanupFacts,
  planNodeCleanup,
} from "@swh/node-liveness";
import type { IndexedSlice } from "@swh/slice-writer";
import { type ControllerApi, type ReconcileIo, termWriteSignal } from "./controller-api.js";
import type { ControllerCaches } from "./informers.js";
import type { LeaderTerm, NodeReport } from "./leader-term.js";

/** What one node reconcile reads, as plain data. */
export interface NodeFacts {
  name: string;
  /** The Node in the cache (undefined: the cache does not have it). */
  node: Readonly<V1Node> | undefined;
  /** The Lease named after the node's heartbeat, from the cache (its holder is checked here). */
  lease: Readonly<V1Lease> | undefined;
  /** Our slices that name this node. */
  slices: readonly IndexedSlice[];
  /** What this term reported about the node so far. */
  reported: NodeReport;
  /** When this term started: before then it had no evidence about any heartbeat. */
  leadingSince: Date;
  now: Date;
  notReadyGraceMs: number;
}

/** What a node reconcile established: its reports, the SWHs to reconcile because they changed, and when to look again. */
export interface NodeOutcome {
  report: NodeReport;
  requeueSwhs: string[];
  result: WorkResult;
}

/** Reads what a reconcile of node `name` needs; `namespace` is the install namespace (the heartbeat Leases). */
export function readNodeFacts(
  name: string,
  caches: ControllerCaches,
  term: LeaderTerm,
  settings: { namespace: string; nodeNotReadyGraceMs: number },
): NodeFacts {
  return {
    name,
    node: caches.nodes.get(name),
    lease: caches.leases.get(agentLeaseName(name), settings.namespace),
    slices: caches.index.forNode(name),
    reported: { heartbeatStale: term.staleNodes.has(name), notReadyAgentAlive: term.notReadyNodes.has(name) },
    leadingSince: term.since,
    now: new Date(),
    notReadyGraceMs: settings.nodeNotReadyGraceMs,
  };
}

/** Reconciles one node; its `result` says when to look again if time alone can change the decision. */
export async function reconcileNode(facts: NodeFacts, io: ReconcileIo): Promise<NodeOutcome> {
  const { name, slices } = facts;
  const planned = nodeCleanupFacts({
    ...facts,
    sliceCreated: slices.map(({ slice }) => slice.metadata?.creationTimestamp),
  });
  let node = facts.node;
  let decision: NodeDecision = planNodeCleanup(planned);
  if (decision.confirmWithLiveGet) {
    const live = await readLive(name, io.api);
    if (live.outcome === "Found") node = live.node;
    if (live.outcome === "Failed")
      io.logger.warn("could not confirm that a Node is gone; keeping its slices", {
        node: name,
        err: live.message,
      });
    decision = planNodeCleanup({ ...planned, live });
  }

  if (decision.deleteSlices !== false) {
    io.logger.info("deleting the slices of a node", {
      node: name,
      why: decision.deleteSlices,
      slices: slices.length,
    });
    for (const { slice } of slices) {
      const { namespace = "", name: sliceName = "", uid } = slice.metadata ?? {};
      await io.api.deleteSlice(namespace, sliceName, uid, termWriteSignal(io.signal));
    }
  }

  const report = { heartbeatStale: decision.heartbeatStale, notReadyAgentAlive: decision.notReadyAgentAlive };
  reportNode(name, node, facts.reported, report, io);
  const changed =
    facts.reported.heartbeatStale !== report.heartbeatStale ||
    facts.reported.notReadyAgentAlive !== report.notReadyAgentAlive;
  return {
    report,
    // Their status shows both reports (`AgentsReporting`).
    requeueSwhs: changed ? [...new Set(slices.map((s) => s.swhKey))] : [],
    result:
      decision.recheckAfterMs === undefined ? undefined : { requeueAfterMs: decision.recheckAfterMs + 1_000 },
  };
}

/** Sets the node's gauges (removed with the Node), and logs and records a Warning Event for a changed report. */
function reportNode(
  name: string,
  node: Readonly<V1Node> | undefined,
  was: NodeReport,
  now: NodeReport,
  io: ReconcileIo,
): void {
  recordNodeGauges(io.metrics, name, node === undefined ? undefined : now);
  if (was.heartbeatStale !== now.heartbeatStale)
    io.logger.warn(
      now.heartbeatStale ? "agent heartbeat stale; keeping its slices" : "agent heartbeat fresh again",
      {
        node: name,
      },
    );
  if (!was.notReadyAgentAlive && now.notReadyAgentAlive && node !== undefined) {
    const message =
      "Node is NotReady beyond the grace but its agent renews its heartbeat: its slices are kept";
    io.logger.warn(message, { node: name });
    const subject = { apiVersion: "v1", kind: "Node", name, namespace: "", uid: node.metadata?.uid ?? "" };
    io.events.record(subject, "Warning", EVENT_REASONS.nodeNotReadyAgentAlive, message);
  }
}

/** GETs the Node from the API server; a 404 is the only `NotFound`, any other failure is `Failed`. */
async function readLive(name: string, api: ControllerApi): Promise<LiveNode> {
  try {
    const node = await api.readNode(name);
    return node === undefined ? { outcome: "NotFound" } : { outcome: "Found", node };
  } catch (err) {
    return { outcome: "Failed", message: describeApiError(err) };
  }
}
