/**
 * Data shapes of the aggregation: what goes in (pods, probe states) and what comes out (endpoint groups, probe
 * targets, issues). Plain data only, so the agent, the controller and tests can build and compare them freely.
 */
import type {
  DefaultedProbeSpec,
  DefaultedServiceWithHealthchecksSpec,
  IPFamily,
  Protocol,
} from "@swh/crd-types";
import type { HintNames } from "./topology-hints.js";

/** What the agent extracts from a Pod; the aggregation never sees a Kubernetes object. */
export interface PodInfo {
  name: string;
  namespace: string;
  uid: string;
  nodeName: string;
  /** `status.podIPs`, in the pod's order (one per family on dual-stack). */
  ips: readonly string[];
  phase: string;
  /** The pod's `Ready` condition is True. */
  ready: boolean;
  /** The pod has a deletionTimestamp. */
  terminating: boolean;
  labels: Readonly<Record<string, string>>;
  containerPorts: readonly ContainerPort[];
  /** ISO time the pod became Running with an IP: the start of `initialDelaySeconds`. */
  eligibleSince?: string;
  /** The SWHs the pod is drained from (`ANNOTATION_DRAIN`; `*`: every SWH), sorted; absent: none. */
  drainedFrom?: readonly string[];
  /** The readiness gates of SWHs the pod lists (`READINESS_GATE_PREFIX`), sorted by SWH; absent: none. */
  readinessGates?: readonly ReadinessGate[];
}

/** A readiness gate of a pod naming an SWH, with the pod's current condition of that type (if it has one). */
export interface ReadinessGate {
  /** The SWH's name (of the pod's namespace). */
  swh: string;
  /** The condition's status and reason as the pod carries them; absent: no condition of that type yet. */
  current?: { status: string; reason: string };
}

/** A container port of a pod, as declared in its containers' `ports[]`. */
export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol: Protocol;
}

/** The resource being aggregated: identity plus its defaulted spec. */
export interface SwhInput {
  name: string;
  namespace: string;
  uid?: string;
  spec: DefaultedServiceWithHealthchecksSpec;
}

/** The address family of an endpoint (and of the slices holding it). */
export type AddressFamily = IPFamily;

/** Desired endpoints of one (Service port, address family, resolved container port): one slice family. */
export interface EndpointGroup {
  /** Service port name, "" when unnamed. */
  portName: string;
  /** The resolved container port. */
  port: number;
  protocol: Protocol;
  appProtocol?: string;
  addressFamily: AddressFamily;
  /** Sorted by address. */
  endpoints: DesiredEndpoint[];
}

/** One endpoint as it should appear in an EndpointSlice, plus why it is not serving (never written to a slice). */
export interface DesiredEndpoint {
  address: string;
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName: string;
  zone?: string;
  targetRef: { kind: "Pod"; name: string; namespace: string; uid: string };
  /** Topology hints (`spec.trafficDistribution`, see topology-hints.ts); shared by the endpoints of one pod. */
  hints?: HintNames;
  /** The first failing probe of this port's group, when the group does not pass. */
  failure?: EndpointFailure;
  /** Drained by its pod's annotation: not ready whatever its checks say (they go on running). */
  drained?: true;
}

/** Why a (pod, port) group does not pass: the first failing probe in spec order. */
export interface EndpointFailure {
  /** Index in `spec.healthcheck.probes`. */
  probeIndex: number;
  /** Human-readable probe, e.g. `HTTP :8080 /healthz`. */
  failingProbe: string;
  /**
   * A ProbeFailureReason such as `ConnectionRefused`, `NotProbedYet` while no result exists, or `PortNotFound` /
   * `UnsupportedMode` for a probe that cannot run on this pod.
   */
  reason: string;
  message: string;
  /** The probe target id; for a probe that cannot run (no target exists) a fixed id naming address and probe. */
  targetId: string;
}

/** One probe the agent must run: a distinct (pod address, probe config), shared by every SWH that needs it. */
export interface ProbeTarget {
  /** Stable key derived from the address and the canonical probe config (never contains header values). */
  id: string;
  address: string;
  /** The resolved container port. */
  port: number;
  probe: DefaultedProbeSpec;
  /** Namespace of the pod (and of every SWH using the target): where a PostgreSQL auth Secret is read. */
  namespace: string;
  pod: { name: string; namespace: string; uid: string };
  initialDelaySeconds: number;
  periodSeconds: number;
  /** The SWH's adaptive periods (ADR 0037), when set. */
  transitionPeriodSeconds?: number;
  downPeriodSeconds?: number;
  eligibleSince?: string;
}

/** The current result of each probe target, keyed by `ProbeTarget.id`; a missing entry means failing (not yet probed). */
export type ProbeStates = ReadonlyMap<string, ProbeState>;

/** The state of one probe target: passing or not, with the reason and message of its last failure. */
export interface ProbeState {
  passing: boolean;
  reason?: string;
  message?: string;
}

/** Kinds of problem the aggregation reports instead of silently ignoring. */
export const AGGREGATION_ISSUE_KINDS = {
  /** A probe's resolved port is used by no Service port of that pod: it gates nothing. */
  probePortUnused: "ProbePortUnused",
  /**
   * A probe's named targetPort is not a container port of the pod (or the probe has none): the probe cannot run,
   * so it fails with `PortNotFound` on every port of that pod (fail closed).
   */
  probePortNotFound: "ProbePortNotFound",
  /** A probe's mode is not one this version runs: it fails with `UnsupportedMode` on every port of every pod. */
  probeModeUnsupported: "ProbeModeUnsupported",
  /** A Service port's named targetPort is not a container port of the pod: the pod is not published on it. */
  targetPortNotFound: "TargetPortNotFound",
} as const;
/** One of the `AGGREGATION_ISSUE_KINDS` values. */
export type AggregationIssueKind = (typeof AGGREGATION_ISSUE_KINDS)[keyof typeof AGGREGATION_ISSUE_KINDS];

/** A problem found while aggregating, naming the spec field at fault and, when pod-specific, the pod. */
export interface AggregationIssue {
  kind: AggregationIssueKind;
  /** Path of the field at fault, e.g. `spec.healthcheck.probes[1].tcp.targetPort`. */
  path: string;
  /** `namespace/name` of the pod concerned; absent when the problem holds for every pod. */
  pod?: string;
  message: string;
}

/** Result of `aggregateEndpoints`: the groups to publish and the problems found. */
export interface Aggregation {
  groups: EndpointGroup[];
  issues: AggregationIssue[];
}
