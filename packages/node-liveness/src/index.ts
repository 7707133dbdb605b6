/**
 * @swh/node-liveness — whether a node's agent is alive, and what that means for the node's EndpointSlices
 * (SPEC §5, ADR 0009 and 0013): the name of each agent's heartbeat Lease, one function for the agent that renews
 * it and the controller that reads it (`agentLeaseName`, `agentLeaseNode`), and the controller's pure decision
 * about one node (`planNodeCleanup`: delete its slices only on proof, report a stale heartbeat otherwise), with
 * the facts it decides on read from the controller's cached objects (`nodeCleanupFacts`).
 */
export { agentLeaseName, agentLeaseNode } from "./agent-lease-name.js";
export {
  DEFAULT_AGENT_LEASE_SECONDS,
  LIVE_GET_RETRY_MS,
  type LiveNode,
  type NodeDecision,
  type NodeFacts,
  type NodeObjects,
  nodeCleanupFacts,
  planNodeCleanup,
} from "./plan-node-cleanup.js";
