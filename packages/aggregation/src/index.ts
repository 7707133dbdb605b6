/**
 * @swh/aggregation — pure port aggregation (SPEC §3): from a defaulted ServiceWithHealthchecks, the pods of a
 * node and the probe states, the endpoints to publish per Service port and address family, and the probe targets
 * the agent must run. No I/O, no clock: time enters as a parameter.
 */
export { type AggregateOptions, aggregateEndpoints } from "./aggregate-endpoints.js";
export { type FailOpenPort, failOpenVerdict, isCheckFailure, type JudgedEndpoint } from "./fail-open.js";
export { mergePatch } from "./merge-patch.js";
export {
  diffTargets,
  planNodeTargets,
  type TargetChanges,
  type TargetPlan,
  type TargetSchedule,
  type TargetUser,
  targetSchedule,
} from "./plan-node-targets.js";
export { planProbeTargets } from "./plan-probe-targets.js";
export { newServiceFor, planService, type ServicePlan } from "./plan-service.js";
export { type PodObject, podInfoFromPod, samePodInfo } from "./pod-info.js";
export { canonicalJson } from "./probe-identity.js";
export { publishedVerdicts, type VerdictSlice } from "./published-verdicts.js";
export {
  type ReadinessGateCondition,
  type ReadinessGateUpdate,
  readinessGatePatch,
  readinessGateUpdates,
} from "./readiness-gates.js";
export { sameJson } from "./same-json.js";
export { type SwhObject, swhInputFromObject } from "./swh-input.js";
export {
  type EndpointPlace,
  endpointHints,
  type HintNames,
  publishedZoneHints,
  type WantedHints,
  wantedHints,
  type ZoneHintsVerdict,
  zoneHintsVerdict,
} from "./topology-hints.js";
export {
  type AddressFamily,
  AGGREGATION_ISSUE_KINDS,
  type Aggregation,
  type AggregationIssue,
  type AggregationIssueKind,
  type ContainerPort,
  type DesiredEndpoint,
  type EndpointFailure,
  type EndpointGroup,
  type PodInfo,
  type ProbeState,
  type ProbeStates,
  type ProbeTarget,
  type ReadinessGate,
  type SwhInput,
} from "./types.js";
