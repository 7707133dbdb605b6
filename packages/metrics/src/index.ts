export {
  type AgentMetrics,
  countEndpoints,
  createAgentMetrics,
  type EndpointCounts,
  type ProbeModeLabel,
  type ProbeSlots,
  probeModeLabel,
  recordEndpointCounts,
  recordSliceWrites,
} from "./agent-metrics.js";
export {
  type ControllerMetrics,
  clearLeaderOnlyMetrics,
  createControllerMetrics,
  recordNodeGauges,
  recordServiceGauges,
} from "./controller-metrics.js";
