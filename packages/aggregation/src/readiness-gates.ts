/**
 * Pod readiness gates that wait on an SWH's checks (`READINESS_GATE_PREFIX`): what each gated pod's condition
 * should say after an aggregation, and which pods do not say it yet. The verdict is the SWH's checks on every
 * port of the pod — the endpoints' `failure`, not their `serving`: `serving` includes the pod's `Ready`, which
 * the kubelet holds False until this very gate is True, so reading it would never open the gate. A drained pod
 * (`ANNOTATION_DRAIN`) passes its gate while its checks pass: draining takes it out of traffic, not out of a
 * rollout. Terminating pods and pods without an address are left as they are.
 */
import { READINESS_GATE_PREFIX, READINESS_GATE_REASONS } from "@swh/crd-types";
import { candidatePods } from "./select-pods.js";
import type { DesiredEndpoint, EndpointGroup, PodInfo, SwhInput } from "./types.js";

/** A readiness gate condition as the agent writes it into a pod's `status.conditions`. */
export interface ReadinessGateCondition {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
}

/** A pod whose gate condition must be written: the pod's identity (uid as a precondition) and the condition. */
export interface ReadinessGateUpdate {
  pod: { namespace: string; name: string; uid: string };
  condition: ReadinessGateCondition;
  /** The status differs from the pod's (or it has none yet): the condition's `lastTransitionTime` is now. */
  transition: boolean;
}

/**
 * The strategic merge patch of `pods/status` that writes `update`: conditions merge by type, so the pod's other
 * conditions (the kubelet's) are untouched, and `metadata.uid` is a precondition (a pod recreated under the same
 * name is not written). `lastTransitionTime` is `now` only for a transition: when only the reason changed, the
 * pod keeps its own.
 */
export function readinessGatePatch(
  update: ReadinessGateUpdate,
  now: Date,
): { metadata: { uid: string }; status: { conditions: object[] } } {
  const { condition, transition } = update;
  return {
    metadata: { uid: update.pod.uid },
    status: {
      conditions: [{ ...condition, ...(transition ? { lastTransitionTime: now.toISOString() } : {}) }],
    },
  };
}

/**
 * The gate conditions of `swh` on the pods of `nodeName` (its candidate pods that list its gate) whose status or
 * reason differ from what the pod carries, in pod order; `groups` is the aggregation of `swh` on those pods.
 * An unchanged verdict yields nothing, so a steady node writes nothing.
 */
export function readinessGateUpdates(
  swh: SwhInput,
  pods: readonly PodInfo[],
  groups: readonly EndpointGroup[],
  nodeName: string,
): ReadinessGateUpdate[] {
  const updates: ReadinessGateUpdate[] = [];
  for (const pod of candidatePods(swh, pods, nodeName)) {
    const gate = pod.readinessGates?.find((g) => g.swh === swh.name);
    if (gate === undefined || pod.terminating) continue;
    const condition = gateCondition(swh, endpointsOf(pod.uid, groups));
    if (gate.current?.status === condition.status && gate.current.reason === condition.reason) continue;
    updates.push({
      pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
      condition,
      transition: gate.current?.status !== condition.status,
    });
  }
  return updates;
}

/** The endpoints of the pod `uid` with the port label of their group. */
function endpointsOf(uid: string, groups: readonly EndpointGroup[]): { port: string; e: DesiredEndpoint }[] {
  return groups.flatMap((g) =>
    g.endpoints
      .filter((e) => e.targetRef.uid === uid)
      .map((e) => ({ port: g.portName === "" ? String(g.port) : g.portName, e })),
  );
}

/** The condition for a pod with these endpoints of `swh` (see the file comment). */
function gateCondition(
  swh: SwhInput,
  endpoints: readonly { port: string; e: DesiredEndpoint }[],
): ReadinessGateCondition {
  const type = `${READINESS_GATE_PREFIX}${swh.name}`;
  const of = `ServiceWithHealthchecks ${swh.namespace}/${swh.name}`;
  if (endpoints.length === 0) {
    return {
      type,
      status: "False",
      reason: READINESS_GATE_REASONS.noEndpoints,
      message: `${of} selects this pod but publishes no endpoint of it (no port or address family of its spec resolves to it)`,
    };
  }
  const failing = endpoints.find(({ e }) => e.failure !== undefined);
  if (failing?.e.failure !== undefined) {
    const { failingProbe, reason, message } = failing.e.failure;
    return {
      type,
      status: "False",
      reason,
      message: `${of}, port ${failing.port}: ${failingProbe}: ${message}`,
    };
  }
  return {
    type,
    status: "True",
    reason: READINESS_GATE_REASONS.passing,
    message: `every port of this pod passes the checks of ${of}`,
  };
}
