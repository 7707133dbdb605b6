/**
 * @swh/slice-writer — the EndpointSlice format of one ServiceWithHealthchecks on one node (SPEC §4) and its
 * writing: names, labels and content; a pure planner (`planSlices`: desired endpoint groups + existing slices →
 * create/update/delete) and an applier (`applySlicePlan`, `writeSlices`) that performs a plan with
 * @kubernetes/client-node, re-planning on conflicts; and the one reader (`readSlice`) with what is built on it
 * (`SliceIndex`, `findEndpointTransitions`, `seedFromSlices`). It owns the agent–controller
 * contract (ADR 0013): the slice labels and annotations and their reader. The SWH status computed from the slices
 * is `@swh/status`'s; the heartbeat Lease names and node cleanup are `@swh/node-liveness`'s.
 */
export {
  type ApplyOptions,
  type ApplyResult,
  applySlicePlan,
  type SliceAction,
  type SliceApi,
  WRITE_RESULTS,
  type WriteResult,
} from "./apply-slice-plan.js";
export {
  type EndpointTransition,
  findEndpointTransitions,
  type TransitionEvent,
  transitionEvent,
} from "./endpoint-transitions.js";
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
  type ServiceLabels,
  serviceLabelsOf,
  sliceLabelSelector,
  sliceLabels,
} from "./slice-labels.js";
export { MAX_SLICE_NAME_LENGTH, type SliceKey, sliceName } from "./slice-name.js";
export { SliceWriteError, type WriteRequest, type WriteSlicesOptions, writeSlices } from "./write-slices.js";
