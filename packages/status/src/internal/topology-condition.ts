/**
 * The `TopologyHints` condition (ADR 0035): present only while `spec.trafficDistribution` asks for hints, and
 * computed from the same verdict the controller publishes to the agents (`zoneHintsVerdict`), so status and slices
 * cannot tell different stories. True `Hinted`: every endpoint carries its zone hint (and, for PreferSameNode, its
 * node hint). False `NodeWithoutZone`: some node has no zone label, so no endpoint carries a zone hint and
 * kube-proxy routes cluster-wide (PreferSameNode still keeps a client's traffic on its node when it has an
 * endpoint there).
 */
import { wantedHints, zoneHintsVerdict } from "@swh/aggregation";
import { CONDITION_REASONS, CONDITION_TYPES } from "@swh/crd-types";
import { type ConditionInput, LABEL_TOPOLOGY_ZONE } from "@swh/crd-types/internal";
import type { SliceView } from "@swh/slice-writer";

/** At most this many node names in the message (a cluster can have thousands). */
const MAX_LISTED_NODES = 5;

/** The condition for `trafficDistribution` over the SWH's slices; undefined when it asks for no hints. */
export function topologyHintsCondition(
  trafficDistribution: string | undefined,
  slices: readonly SliceView[],
): ConditionInput | undefined {
  const wanted = wantedHints(trafficDistribution);
  if (!wanted.zones && !wanted.nodes) return undefined;
  const verdict = zoneHintsVerdict(slices.flatMap((s) => s.endpoints));
  const kinds = wanted.nodes ? "node and zone hints" : "zone hints";
  if (verdict.zoneHints) {
    return {
      type: CONDITION_TYPES.topologyHints,
      status: "True",
      reason: CONDITION_REASONS.topologyHints.hinted,
      message: `trafficDistribution ${trafficDistribution}: every endpoint carries ${kinds}`,
    };
  }
  const nodes = verdict.nodesWithoutZone;
  const listed =
    nodes.slice(0, MAX_LISTED_NODES).join(", ") +
    (nodes.length > MAX_LISTED_NODES ? `, … (${nodes.length} nodes)` : "");
  const effect = wanted.nodes
    ? "endpoints carry node hints only; clients on nodes without an endpoint are routed cluster-wide"
    : "no endpoint carries a zone hint and traffic is routed cluster-wide";
  return {
    type: CONDITION_TYPES.topologyHints,
    status: "False",
    reason: CONDITION_REASONS.topologyHints.nodeWithoutZone,
    message: `trafficDistribution ${trafficDistribution}: node(s) ${listed} have no ${LABEL_TOPOLOGY_ZONE} label, so ${effect}`,
  };
}
