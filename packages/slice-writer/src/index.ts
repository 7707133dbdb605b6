/**
 * @swh/slice-writer — EndpointSlices for one ServiceWithHealthchecks on one node (SPEC §4): a pure planner
 * (`planSlices`: desired endpoint groups + existing slices → create/update/delete) and an applier
 * (`applySlicePlan`) that performs a plan with @kubernetes/client-node, re-planning on conflicts. It owns the
 * agent–controller contract (ADR 0013): the slice labels and annotations and their one reader (`readSlice`). The
 * heartbeat Lease name and node cleanup are `@swh/node-liveness`'s.
 */
export {
  type ApplyOptions,
  type ApplyResult,
  applySlicePlan,
  SLICE_ACTIONS,
  type SliceAction,
  type SliceApi,
  WRITE_RESULTS,
  type WriteResult,
} from "./apply-slice-plan.js";
export { type EndpointTransition, findEndpointTransitions } from "./endpoint-transitions.js";
export { type PlanSlicesInput, planSlices, type SlicePlan } from "./plan-slices.js";
export {
  type EndpointReason,
  readSlice,
  type SliceEndpointView,
  type SliceView,
  sliceNodeName,
} from "./read-slice.js";
export {
  type SeedableTarget,
  type SeededState,
  type SeedInput,
  seedFromSlices,
  seedPrecedingProbes,
} from "./seed-probe-states.js";
export { type IndexedSlice, SliceIndex } from "./slice-index.js";
export {
  isOwnedSlice,
  MANAGED_LABEL_KEYS,
  nodeLabelValue,
  portLabelValue,
  type ServiceLabels,
  serviceLabelsOf,
  sliceLabelSelector,
  sliceLabels,
} from "./slice-labels.js";
export { MAX_SLICE_NAME_LENGTH, type SliceKey, sliceName } from "./slice-name.js";
export { SliceWriteError, type WriteRequest, type WriteSlicesOptions, writeSlices } from "./write-slices.js";
export { WrittenSlices } from "./written-slices.js";
