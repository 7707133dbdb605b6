/**
 * `@swh/crd-types/internal` — the contracts between the components of this repository (controller, agent and
 * their packages) that a user of the resource must not depend on: the spec the controller publishes for the
 * agents, field managers, Lease names, the controller's propagation bookkeeping, the ownership rules both apps
 * apply, the status and message helpers. No semver promise: any release may change or remove these names.
 * The resource API (types, defaults, validation, builders, the CRD, labels, reason codes) is the package root,
 * `src/index.ts`. (The files under `src/internal/` are private to the package and exported by neither.)
 */
// biome-ignore-all assist/source/organizeImports: the exports are grouped by purpose, one comment per group.

// The controller → agent contract: the spec published on the child Service (ADR 0032).
export { ANNOTATION_SWH_SPEC } from "./constants.js";
export {
  type PublishedSpec,
  type PublishedSwh,
  type PublishedVerdicts,
  type PublishingService,
  publishedSpecValue,
  readPublishedSwh,
  type ServiceSwh,
} from "./published-spec.js";
// Field managers and Lease names: what the apps write as, and the Leases they hold.
export {
  AGENT_LEASE_PREFIX,
  CONTROLLER_LEADER_LEASE,
  FIELD_MANAGER_AGENT,
  FIELD_MANAGER_CONTROLLER,
} from "./constants.js";
// The controller's bookkeeping of what it propagated from an SWH to its Service.
export {
  ANNOTATION_PROPAGATED_ANNOTATIONS,
  ANNOTATION_PROPAGATED_LABELS,
  NON_PROPAGATED_ANNOTATIONS,
} from "./constants.js";
// The agent's defaults and run-time bounds: slice size, the node's zone label, probe timeouts, gRPC authority.
export { DEFAULT_MAX_ENDPOINTS_PER_SLICE, LABEL_TOPOLOGY_ZONE } from "./constants.js";
export { GRPC_AUTHORITY_PATTERN } from "./internal/schema-healthcheck.js";
export { boundedTimeoutSeconds } from "./probe-timeout.js";
// Who controls the Service: adopt or refuse (controller), publish or withhold (agent) (ADR 0014).
export {
  controllerRefOf,
  endpointPublication,
  hasSelector,
  isControlledBy,
  isControllerRefTo,
  isReservedService,
  type OwnerIdentity,
  ownerReferenceTo,
  type Publication,
  type ServiceControlView,
} from "./ownership.js";
export { type SwhReference, swhReference } from "./swh-reference.js";
// Status helpers: conditions with their transition times, Kubernetes timestamps.
export {
  type ConditionChange,
  type ConditionInput,
  conditionChanges,
  withTransitionTimes,
} from "./conditions.js";
export { type Timestamp, toMillis } from "./time.js";
// Messages about stored values and specs the API server no longer accepts.
export { describeValue } from "./types.js";
export { describeUnprocessableSpec } from "./validate.js";
// A short stable hash of a name, for object names and label values within their length limits.
export { shortHash } from "./short-hash.js";
