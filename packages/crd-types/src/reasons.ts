/**
 * Every reason code a user can read: condition reasons of the status, Event reasons, probe failure reasons and
 * why an agent withholds endpoints. They are written once here, used by the apps and probes as constants, and
 * `docs/troubleshooting.md` is checked against exactly these sets by a test: a reason added here without its
 * documentation, or documented after it is gone, fails the build. Each app types what it emits with these
 * unions, so a reason cannot appear in an app without appearing here first.
 */
import { SERVICE_PROBLEMS } from "./ownership.js";

/**
 * Why a probe failed; a closed set shared by the probe engine, slices and status. `PortNotFound` (a named
 * targetPort that is no container port of the pod) and `UnsupportedMode` (a mode this version cannot run) are
 * probes that cannot run at all: they fail (fail closed) instead of being skipped. `CredentialsNotPermitted`:
 * the agent may not read Secrets in the pod's namespace because no administrator enabled it (ADR 0020).
 * `NotProbedYet`: no result exists yet (a new target starts failing, SPEC §3.3). The `GRPC…` reasons are the
 * answers of `grpc.health.v1.Health/Check` (ADR 0027): `NOT_SERVING`, `SERVICE_UNKNOWN` (or status NOT_FOUND),
 * `UNKNOWN`, status UNIMPLEMENTED (no health service), and any other non-OK status.
 */
export const PROBE_FAILURE_REASONS = [
  "ConnectionRefused",
  "ConnectionReset",
  "Timeout",
  "HTTPStatus",
  "HTTPBody",
  "TLSError",
  "AuthFailed",
  "QueryFalse",
  "QueryError",
  "GRPCNotServing",
  "GRPCServiceUnknown",
  "GRPCStatusUnknown",
  "GRPCUnimplemented",
  "GRPCError",
  "ProtocolError",
  "DNSError",
  "CredentialsMissing",
  "CredentialsInvalid",
  "CredentialsNotPermitted",
  "PortNotFound",
  "UnsupportedMode",
  "NotProbedYet",
  "Error",
] as const;
/** One of `PROBE_FAILURE_REASONS`. */
export type ProbeFailureReason = (typeof PROBE_FAILURE_REASONS)[number];

/**
 * Probe failure reasons that mean the probe's configuration (or its credentials), not the pod, is wrong: the
 * controller reports them in `ProbesValid` as well as on the endpoint.
 */
export const CONFIGURATION_FAILURE_REASONS: readonly ProbeFailureReason[] = [
  "CredentialsMissing",
  "CredentialsInvalid",
  "CredentialsNotPermitted",
  "PortNotFound",
  "UnsupportedMode",
];

/** Reason shared by the conditions and the Event of an SWH whose stored spec no longer fits the schema. */
const INVALID_SPEC = "InvalidSpec";

/**
 * Reasons of each condition type (keys as in `CONDITION_TYPES`). `ChildServiceReady` mirrors `ServiceReady`.
 * Every change of a condition's status is also recorded as an Event with the condition's reason.
 */
export const CONDITION_REASONS = {
  ready: {
    endpointsReady: "EndpointsReady",
    endpointsNotReady: "EndpointsNotReady",
    noEndpoints: "NoEndpoints",
    serviceNotReady: "ServiceNotReady",
    invalidSpec: INVALID_SPEC,
  },
  serviceReady: {
    synced: "Synced",
    serviceWriteFailed: "ServiceWriteFailed",
    ...SERVICE_PROBLEMS,
    invalidSpec: INVALID_SPEC,
  },
  probesValid: {
    valid: "Valid",
    invalidProbes: "InvalidProbes",
    invalidSpec: INVALID_SPEC,
  },
  agentsReporting: {
    heartbeatsFresh: "HeartbeatsFresh",
    agentHeartbeatStale: "AgentHeartbeatStale",
    nodeNotReadyAgentAlive: "NodeNotReadyAgentAlive",
  },
  reconciled: {
    reconcileFailed: "ReconcileFailed",
  },
} as const;

type ValuesOf<T> = T[keyof T];
/** Any reason a condition of the status can carry. */
export type ConditionReason = ValuesOf<{
  [K in keyof typeof CONDITION_REASONS]: ValuesOf<(typeof CONDITION_REASONS)[K]>;
}>;
/** Reasons of `ServiceReady` (and `ChildServiceReady`) when the child Service is not in sync. */
export type ServiceSyncFailureReason = Exclude<ValuesOf<typeof CONDITION_REASONS.serviceReady>, "Synced">;

/**
 * Reasons of the Events the apps record beyond condition changes (which carry the condition's reason). The
 * controller records `ServiceCreated`, `ServiceAdopted`, `InvalidSpec`, `ReconcileFailed` on SWHs and
 * `NodeNotReadyAgentAlive` on Nodes; the agent records the others on SWHs and Pods.
 */
export const EVENT_REASONS = {
  /** The controller created the child Service. */
  serviceCreated: "ServiceCreated",
  /** The controller adopted a selector-less Service nothing controlled. */
  serviceAdopted: "ServiceAdopted",
  /** An SWH whose stored spec no longer fits the schema: skipped until it changes. */
  invalidSpec: INVALID_SPEC,
  /** The controller stopped retrying an SWH (ADR 0022). */
  reconcileFailed: CONDITION_REASONS.reconciled.reconcileFailed,
  /** A NotReady Node whose agent still renews its heartbeat: its slices are kept. */
  nodeNotReadyAgentAlive: CONDITION_REASONS.agentsReporting.nodeNotReadyAgentAlive,
  /** An endpoint became ready on every port. */
  endpointReady: "EndpointReady",
  /** An endpoint stopped being ready on some port. */
  endpointNotReady: "EndpointNotReady",
  /** A Pod the agent cannot read: not published by this node's agent until it changes. */
  unreadablePod: "UnreadablePod",
  /** A probe that cannot run (PortNotFound, UnsupportedMode): it fails on every port of the pods concerned. */
  probeCannotRun: "ProbeCannotRun",
} as const;
/** One of `EVENT_REASONS`. */
export type EventReason = ValuesOf<typeof EVENT_REASONS>;
