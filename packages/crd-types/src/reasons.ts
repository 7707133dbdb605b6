/**
 * Every reason code a user can read: condition reasons of the status, Event reasons, probe failure reasons and
 * why an agent withholds endpoints. They are written once here, used by the apps and probes as constants, and
 * `docs/troubleshooting.md` is checked against exactly these sets by a test: a reason added here without its
 * documentation, or documented after it is gone, fails the build. Each app types what it emits with these
 * unions, so a reason cannot appear in an app without appearing here first. This file imports nothing: the types
 * and ownership rules build on it, never the other way round.
 */

/**
 * Who reports a probe failure reason: `probe` — the probe engine (`@swh/probes`) observed it on the target (or, for
 * `UnsupportedMode`, cannot run the mode); `agent` — the agent reports it instead of a probe result (credentials it
 * could not get, a named port the pod does not have, no result yet).
 */
export type ProbeFailureSource = "probe" | "agent";

/**
 * Why a probe failed; a closed set shared by the probe engine, slices and status. `PortNotFound` (a named
 * targetPort that is no container port of the pod) and `UnsupportedMode` (a mode this version cannot run) are
 * probes that cannot run at all: they fail (fail closed) instead of being skipped. `CredentialsNotPermitted`:
 * the agent may not read Secrets in the pod's namespace because no administrator enabled it (ADR 0020).
 * `NotProbedYet`: no result exists yet (a new target starts failing, SPEC §3.3). The `GRPC…` reasons are the
 * answers of `grpc.health.v1.Health/Check` (ADR 0027): `NOT_SERVING`, `SERVICE_UNKNOWN` (or status NOT_FOUND),
 * `UNKNOWN`, status UNIMPLEMENTED (no health service), and any other non-OK status.
 *
 * The catalogue: each reason with who reports it (`ProbeFailureSource`). It is the one list of these reasons;
 * `PROBE_FAILURE_REASONS` and `@swh/probes`' `PROBE_REASONS` (the `probe` ones) are derived from it.
 */
export const PROBE_FAILURE_REASON_SOURCES = {
  ConnectionRefused: "probe",
  ConnectionReset: "probe",
  Timeout: "probe",
  HTTPStatus: "probe",
  HTTPBody: "probe",
  HTTPHeader: "probe",
  TCPResponse: "probe",
  TLSError: "probe",
  AuthFailed: "probe",
  QueryFalse: "probe",
  QueryError: "probe",
  GRPCNotServing: "probe",
  GRPCServiceUnknown: "probe",
  GRPCStatusUnknown: "probe",
  GRPCUnimplemented: "probe",
  GRPCError: "probe",
  ProtocolError: "probe",
  DNSError: "probe",
  CredentialsMissing: "agent",
  CredentialsInvalid: "agent",
  CredentialsNotPermitted: "agent",
  PortNotFound: "agent",
  UnsupportedMode: "probe",
  NotProbedYet: "agent",
  Error: "probe",
} as const satisfies Record<string, ProbeFailureSource>;

/** Every probe failure reason, in the catalogue's order: the keys of `PROBE_FAILURE_REASON_SOURCES`. */
export const PROBE_FAILURE_REASONS = Object.keys(
  PROBE_FAILURE_REASON_SOURCES,
) as readonly ProbeFailureReason[];
/** One of `PROBE_FAILURE_REASONS`. */
export type ProbeFailureReason = keyof typeof PROBE_FAILURE_REASON_SOURCES;

/** The endpoint reason of a pod drained by `ANNOTATION_DRAIN`: not ready for new traffic, no check failing. */
export const DRAINED_REASON = "Drained";

/**
 * Reasons of a pod's readiness gate condition (`READINESS_GATE_PREFIX`) besides the failing check's own reason
 * (one of `PROBE_FAILURE_REASONS`, or `NotProbedYet` before the first result).
 */
export const READINESS_GATE_REASONS = {
  /** True: every port of the pod passes the SWH's checks. */
  passing: "ChecksPassing",
  /** False: the SWH selects the pod but publishes no endpoint of it (no port or address family resolves). */
  noEndpoints: "NoEndpoints",
} as const;

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
 * Why the controller cannot bring an SWH's Service in sync; each is a `ServiceReady=False` reason. The first
 * three also mean that no endpoints are published (see `endpointPublication` in ownership.ts).
 */
export const SERVICE_PROBLEMS = {
  reserved: "ServiceReserved",
  ownedByOther: "ServiceOwnedByOther",
  hasSelector: "ServiceHasSelector",
  clusterIPImmutable: "ClusterIPImmutable",
  deleting: "ServiceDeleting",
} as const;
/** One of `SERVICE_PROBLEMS`. */
export type ServiceProblem = (typeof SERVICE_PROBLEMS)[keyof typeof SERVICE_PROBLEMS];

/**
 * Why the agent withholds an SWH's endpoints: the three `SERVICE_PROBLEMS` that stop publication, or a state the
 * controller resolves by itself — `ServiceMissing` (it creates the Service) and `ServiceNotAdopted` (a
 * selector-less Service nothing controls: it adopts it).
 */
export const PUBLICATION_BLOCKS = [
  SERVICE_PROBLEMS.reserved,
  SERVICE_PROBLEMS.ownedByOther,
  SERVICE_PROBLEMS.hasSelector,
  "ServiceMissing",
  "ServiceNotAdopted",
] as const;
/** One of `PUBLICATION_BLOCKS`. */
export type PublicationBlock = (typeof PUBLICATION_BLOCKS)[number];

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
  topologyHints: {
    /** Every endpoint carries a zone hint (and, for PreferSameNode, a node hint). */
    hinted: "Hinted",
    /** Some endpoint has no zone: no endpoint carries a zone hint (PreferSameNode keeps its node hints). */
    nodeWithoutZone: "NodeWithoutZone",
  },
  checksEnforced: {
    /** Every port's endpoints follow their checks. */
    checksDecide: "ChecksDecide",
    /** Some port's failing endpoints are published as if passing (`spec.healthcheck.failOpen`, ADR 0039). */
    failingOpen: "FailingOpen",
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
