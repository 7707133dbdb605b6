/**
 * The SWH status (SPEC §2.3), computed from facts the controller has: how the child Service sync went, the
 * Service itself, the slices the agents wrote and which agents stopped renewing their heartbeat. Pure; the
 * result is equal to the stored status when nothing changed, which is how the controller avoids writes.
 */
import type { V1Service } from "@kubernetes/client-node";
import { sameJson } from "@swh/aggregation";
import {
  CONDITION_REASONS,
  CONDITION_TYPES,
  type Condition,
  type ConditionReason,
  checkProbePorts,
  type LoadBalancerStatus,
  type ServiceSyncFailureReason,
  type ServiceWithHealthchecks,
  type ServiceWithHealthchecksStatus,
} from "@swh/crd-types";
import { type ConditionInput, type Timestamp, withTransitionTimes } from "@swh/crd-types/internal";
import type { SliceView } from "@swh/slice-writer";
import { checksEnforcedCondition } from "./internal/fail-open-condition.js";
import { externalIPSummary, portsSummary } from "./internal/service-summaries.js";
import { DEFAULT_MAX_LISTED_ENDPOINTS, summarizeEndpoints } from "./internal/summarize-endpoints.js";
import { topologyHintsCondition } from "./internal/topology-condition.js";

/** The status this controller writes: the shared shape plus the printer-column texts. */
export type ControllerStatus = ServiceWithHealthchecksStatus & {
  readySummary?: string;
  portsSummary?: string;
  externalIPSummary?: string;
};

/** How the child Service sync ended. */
export type ServiceSyncOutcome =
  | { ready: true }
  | { ready: false; reason: ServiceSyncFailureReason; message: string };

/** Everything `computeStatus` needs. */
export interface StatusInput {
  swh: Readonly<ServiceWithHealthchecks>;
  sync: ServiceSyncOutcome;
  /** The child Service when it is ours (undefined when missing or foreign: nothing is mirrored then). */
  service: Readonly<V1Service> | undefined;
  /** The SWH's slices (label service-name, managed by us, owned by this SWH), as `readSlice` reads them. */
  slices: readonly SliceView[];
  /** Nodes whose agent heartbeat is stale (full names). */
  staleNodes: ReadonlySet<string>;
  /** NotReady nodes (beyond the grace) whose slices are kept because their agent renews its heartbeat. */
  notReadyNodes?: ReadonlySet<string>;
  now: Timestamp;
  maxListedEndpoints?: number;
}

/** Computes the full status; conditions keep their `lastTransitionTime` while their status is unchanged. */
export function computeStatus(input: StatusInput): ControllerStatus {
  const { swh, sync, service } = input;
  const view = summarizeEndpoints(
    input.slices,
    swh.spec.ports ?? [],
    input.maxListedEndpoints ?? DEFAULT_MAX_LISTED_ENDPOINTS,
  );
  const generation = swh.metadata.generation;

  const serviceReady: ConditionInput = sync.ready
    ? {
        type: CONDITION_TYPES.serviceReady,
        status: "True",
        reason: CONDITION_REASONS.serviceReady.synced,
        message: "child Service is in sync",
      }
    : { type: CONDITION_TYPES.serviceReady, status: "False", reason: sync.reason, message: sync.message };

  const probeProblems = [...checkProbePorts(swh.spec), ...view.configurationProblems];
  const probesValid: ConditionInput =
    probeProblems.length === 0
      ? {
          type: CONDITION_TYPES.probesValid,
          status: "True",
          reason: CONDITION_REASONS.probesValid.valid,
          message: "all probes are usable",
        }
      : {
          type: CONDITION_TYPES.probesValid,
          status: "False",
          reason: CONDITION_REASONS.probesValid.invalidProbes,
          message: probeProblems.join("; "),
        };

  const { endpoints, ports } = view;
  const portText = ports.map((p) => `${p.name ?? p.port} ${p.readyEndpoints}/${p.totalEndpoints}`).join(", ");
  const awaiting =
    (view.awaitingFirstProbe > 0 ? `, ${view.awaitingFirstProbe} awaiting a first probe` : "") +
    (view.drained > 0 ? `, ${view.drained} drained` : "");
  let ready: ConditionInput;
  if (!sync.ready) {
    ready = {
      type: CONDITION_TYPES.ready,
      status: "False",
      reason: CONDITION_REASONS.ready.serviceNotReady,
      message: sync.message,
    };
  } else if (endpoints.total === 0) {
    ready = {
      type: CONDITION_TYPES.ready,
      status: "False",
      reason: CONDITION_REASONS.ready.noEndpoints,
      message: "no endpoints are published",
    };
  } else if (
    // An endpoint awaiting its first probe is no evidence against the SWH: a new pod, or a new agent's first
    // round, must not flip Ready to False (and raise a Warning) on a healthy start (issue 21); nor is a drained
    // one, which somebody took out on purpose.
    endpoints.ready < endpoints.total - endpoints.terminating - view.awaitingFirstProbe - view.drained ||
    endpoints.ready === 0
  ) {
    ready = {
      type: CONDITION_TYPES.ready,
      status: "False",
      reason: CONDITION_REASONS.ready.endpointsNotReady,
      message: `${endpoints.ready}/${endpoints.total} endpoints ready (ports: ${portText})`,
    };
  } else {
    ready = {
      type: CONDITION_TYPES.ready,
      status: "True",
      reason: CONDITION_REASONS.ready.endpointsReady,
      message: `${endpoints.ready}/${endpoints.total} endpoints ready${awaiting} (ports: ${portText})`,
    };
  }

  const stale = view.nodes.filter((node) => input.staleNodes.has(node));
  const notReady = view.nodes.filter((node) => input.notReadyNodes?.has(node) === true);
  const agents: ConditionInput =
    stale.length > 0
      ? {
          type: CONDITION_TYPES.agentsReporting,
          status: "False",
          reason: CONDITION_REASONS.agentsReporting.agentHeartbeatStale,
          message: `agent heartbeat stale on node(s) ${stale.join(", ")}; their endpoints are kept as last published`,
        }
      : notReady.length > 0
        ? {
            // The agents do report; what is unusual is the node, and keeping its endpoints is a choice to show.
            type: CONDITION_TYPES.agentsReporting,
            status: "True",
            reason: CONDITION_REASONS.agentsReporting.nodeNotReadyAgentAlive,
            message: `node(s) ${notReady.join(", ")} NotReady beyond the grace, but their agents renew their heartbeat and keep probing; their endpoints stay published`,
          }
        : {
            type: CONDITION_TYPES.agentsReporting,
            status: "True",
            reason: CONDITION_REASONS.agentsReporting.heartbeatsFresh,
            message: "agents of all publishing nodes are renewing their heartbeat",
          };

  const topology = topologyHintsCondition(swh.spec.trafficDistribution, input.slices);
  const failOpen = checksEnforcedCondition(swh.spec.healthcheck?.failOpen, input.slices);
  const conditions = withTransitionTimes(
    swh.status?.conditions,
    [
      ready,
      serviceReady,
      { ...serviceReady, type: CONDITION_TYPES.childServiceReady },
      probesValid,
      agents,
      ...(topology === undefined ? [] : [topology]),
      ...(failOpen === undefined ? [] : [failOpen]),
    ],
    input.now,
    generation,
  );

  const status: ControllerStatus = {
    conditions,
    ports,
    endpoints,
    readySummary: `${sum(ports.map((p) => p.readyEndpoints))}/${sum(ports.map((p) => p.totalEndpoints))}`,
    portsSummary: portsSummary(service),
    externalIPSummary: externalIPSummary(service),
  };
  if (generation !== undefined) status.observedGeneration = generation;
  if (service?.spec?.clusterIP) status.clusterIP = service.spec.clusterIP;
  if (service?.spec?.clusterIPs && service.spec.clusterIPs.length > 0)
    status.clusterIPs = [...service.spec.clusterIPs];
  const loadBalancer = service?.status?.loadBalancer as LoadBalancerStatus | undefined;
  if (loadBalancer?.ingress && loadBalancer.ingress.length > 0)
    status.loadBalancer = structuredClone(loadBalancer);
  return status;
}

/**
 * The status of an SWH the controller cannot process — a stored object whose shape no longer fits the schema
 * (the API server never re-validates stored objects); `problem` names the field. `Ready`, `ServiceReady` (and its
 * alias) are False and `ProbesValid` Unknown, with reason `InvalidSpec`; everything else keeps its stored value,
 * because the child Service and the slices are left as they are (fail static) until the object changes.
 */
export function computeInvalidSpecStatus(
  swh: Readonly<ServiceWithHealthchecks>,
  problem: string,
  now: Timestamp,
): ControllerStatus {
  const previous = (swh.status ?? {}) as ControllerStatus;
  const message = `${problem}; the child Service and the endpoints are left as they are until the spec is fixed`;
  const invalid = (type: string, status: Condition["status"] = "False"): ConditionInput => ({
    type,
    status,
    reason: CONDITION_REASONS.ready.invalidSpec,
    message,
  });
  const kept: ConditionInput[] = (previous.conditions ?? [])
    .filter((c) => c.type === CONDITION_TYPES.agentsReporting || c.type === CONDITION_TYPES.topologyHints)
    // Stored by this controller, so its reason is one of ours.
    .map(({ type, status, reason, message }) => ({
      type,
      status,
      reason: reason as ConditionReason,
      message,
    }));
  const generation = swh.metadata.generation;
  const status: ControllerStatus = {
    ...structuredClone(previous),
    conditions: withTransitionTimes(
      previous.conditions,
      [
        invalid(CONDITION_TYPES.ready),
        invalid(CONDITION_TYPES.serviceReady),
        invalid(CONDITION_TYPES.childServiceReady),
        invalid(CONDITION_TYPES.probesValid, "Unknown"),
        ...kept,
      ],
      now,
      generation,
    ),
  };
  if (generation !== undefined) status.observedGeneration = generation;
  return status;
}

/**
 * `previous` with a `Reconciled` condition (False, `ReconcileFailed`, `message`) in place of any earlier one:
 * everything else is kept as stored, since the failed reconcile established nothing new. `computeStatus` never
 * produces the condition, so the next successful reconcile removes it.
 */
export function withReconcileFailed(
  swh: Readonly<ServiceWithHealthchecks>,
  previous: Readonly<ControllerStatus> | undefined,
  message: string,
  now: Timestamp,
): ControllerStatus {
  const status = structuredClone((previous ?? {}) as ControllerStatus);
  const others = (status.conditions ?? []).filter((c) => c.type !== CONDITION_TYPES.reconciled);
  const [failed] = withTransitionTimes(
    previous?.conditions,
    [
      {
        type: CONDITION_TYPES.reconciled,
        status: "False",
        reason: CONDITION_REASONS.reconciled.reconcileFailed,
        message,
      },
    ],
    now,
    swh.metadata.generation,
  );
  status.conditions = failed === undefined ? others : [...others, failed];
  return status;
}

/** `next` with the `Reconciled` condition of `previous` carried over, if it had one (see `withReconcileFailed`). */
export function keepReconcileFailed(
  previous: Readonly<ControllerStatus> | undefined,
  next: ControllerStatus,
): ControllerStatus {
  const failed = previous?.conditions?.find((c) => c.type === CONDITION_TYPES.reconciled);
  if (failed === undefined) return next;
  return { ...next, conditions: [...(next.conditions ?? []), structuredClone(failed)] };
}

/** True when writing `next` would change nothing in `stored` (absent and empty values count as equal). */
export function sameStatus(
  stored: Readonly<ControllerStatus> | undefined,
  next: Readonly<ControllerStatus>,
): boolean {
  return sameJson(stored ?? {}, next);
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
