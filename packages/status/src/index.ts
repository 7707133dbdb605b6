/**
 * @swh/status — the status of a ServiceWithHealthchecks (SPEC §2.3), computed by the controller from what it reads:
 * how the child Service sync went, the Service, the SWH's EndpointSlices as `readSlice` of `@swh/slice-writer`
 * reads them, and which agents' heartbeats are stale. Pure: `computeStatus` and its variants for an invalid spec
 * and a failed reconcile, `sameStatus` (is a write needed), and `statusEvents` (the Events of a status write).
 */
export {
  type ControllerStatus,
  computeInvalidSpecStatus,
  computeStatus,
  keepReconcileFailed,
  type ServiceSyncOutcome,
  type StatusInput,
  sameStatus,
  withReconcileFailed,
} from "./compute-status.js";
export { type StatusEvent, statusEvents } from "./status-events.js";
