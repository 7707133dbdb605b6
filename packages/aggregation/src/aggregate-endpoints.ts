import { isCheckFailure } from "./fail-open.js";
import {
  type ResolvedProbe,
  resolvedTargetId,
  resolvePod,
  type UnrunnableProbe,
  unrunnableTargetId,
} from "./internal/resolve-pod.js";
import { isDrainedFrom } from "./pod-info.js";
import { describeProbe } from "./probe-identity.js";
import { addressesByFamily } from "./resolve-port.js";
import { candidatePods, compareStrings } from "./select-pods.js";
import { endpointHints, wantedHints } from "./topology-hints.js";
import type {
  Aggregation,
  AggregationIssue,
  DesiredEndpoint,
  EndpointFailure,
  EndpointGroup,
  PodInfo,
  ProbeStates,
  SwhInput,
} from "./types.js";

/** Options of `aggregateEndpoints`. */
export interface AggregateOptions {
  /** Zone of a node (its `topology.kubernetes.io/zone` label), undefined when unknown. */
  zoneOf(nodeName: string): string | undefined;
  /** When given, only pods of this node are considered (the agent publishes its own node only). */
  nodeName?: string;
  /**
   * Whether endpoints may carry zone hints: the controller's verdict over every endpoint of the SWH
   * (`zoneHintsVerdict`, published on the Service). Default true: without a verdict, each endpoint with a zone
   * gets its hint, and kube-proxy ignores zone hints while any ready endpoint lacks one.
   */
  zoneHints?: boolean;
  /**
   * Service port names failing open: the controller's verdict over every endpoint of the SWH (`failOpenVerdict`,
   * published on the Service). On those ports an endpoint whose every failing probe is a check that ran and failed
   * is published as if passing (its failure is kept for the reasons annotation). Applied only while the spec sets
   * `healthcheck.failOpen`.
   */
  failOpenPorts?: ReadonlySet<string>;
}

/**
 * Computes the endpoints `swh` publishes from `pods` and the current probe `states` (SPEC §3): one group per
 * (Service port, address family, resolved container port), endpoints sorted by address, groups sorted by port
 * name, family and port. For each (pod, Service port) the pod serves when it is Ready and every probe whose
 * resolved port equals the Service port's container port passes (ports matched by number, so a TCP probe on 53
 * gates UDP/53); a failing group takes the pod out of that port only. `ready` = serving and not terminating;
 * with `publishNotReadyAddresses` every candidate is ready while `serving` keeps the real value (as Kubernetes
 * does). A pod drained from this SWH (`ANNOTATION_DRAIN`) is not ready on every port, `serving` still telling
 * what its checks say. On a port failing open (`opts.failOpenPorts`, ADR 0039) failing checks do not take the pod
 * out. `spec.trafficDistribution` gives each endpoint its topology hints (`endpointHints`, zone
 * hints only as `opts.zoneHints` allows). A target without a state is failing (`NotProbedYet`). A probe that cannot run on a pod (named port
 * missing, unknown mode) fails on every port of that pod with `PortNotFound` / `UnsupportedMode` (fail closed).
 * Problems are also returned as issues, never thrown.
 */
export function aggregateEndpoints(
  swh: SwhInput,
  pods: readonly PodInfo[],
  states: ProbeStates,
  opts: AggregateOptions,
): Aggregation {
  const groups = new Map<string, EndpointGroup>();
  const issues = new Map<string, AggregationIssue>();
  const families = new Set(swh.spec.ipFamilies ?? []);
  const wanted = wantedHints(swh.spec.trafficDistribution);
  for (const pod of candidatePods(swh, pods, opts.nodeName)) {
    const resolved = resolvePod(swh, pod);
    for (const issue of resolved.issues) issues.set(`${issue.kind} ${issue.path} ${issue.pod}`, issue);
    const zone = opts.zoneOf(pod.nodeName) || undefined;
    const hints = endpointHints(wanted, opts.zoneHints ?? true, { nodeName: pod.nodeName, zone });
    const drained = isDrainedFrom(pod, swh.name);
    const failOpen = swh.spec.healthcheck.failOpen === undefined ? undefined : opts.failOpenPorts;
    for (const { family, address } of addressesByFamily(pod.ips)) {
      if (families.size > 0 && !families.has(family)) continue;
      // One id per probe and address, computed once: several Service ports may share a probe group.
      const ids = new Map(resolved.probes.map((p) => [p.probe, resolvedTargetId(swh, pod, address, p)]));
      const idOf = (probe: ResolvedProbe["probe"]) => ids.get(probe) as string;
      for (const { servicePort, containerPort } of resolved.ports) {
        const portProbes = resolved.probes.filter((p) => p.port === containerPort);
        const failure = firstFailure(portProbes, resolved.unrunnable, address, idOf, states);
        const failingOpen =
          failure !== undefined &&
          failOpen?.has(servicePort.name ?? "") === true &&
          failsOnlyChecks(portProbes, resolved.unrunnable, idOf, states);
        const serving = pod.ready && (failure === undefined || failingOpen);
        const endpoint: DesiredEndpoint = {
          address,
          conditions: {
            ready: swh.spec.publishNotReadyAddresses === true || (serving && !pod.terminating && !drained),
            serving,
            terminating: pod.terminating,
          },
          nodeName: pod.nodeName,
          targetRef: { kind: "Pod", name: pod.name, namespace: pod.namespace, uid: pod.uid },
        };
        if (zone !== undefined) endpoint.zone = zone;
        if (hints !== undefined) endpoint.hints = hints;
        if (failure !== undefined) endpoint.failure = failure;
        if (drained) endpoint.drained = true;
        const portName = servicePort.name ?? "";
        const key = `${portName}\u0000${family}\u0000${containerPort}`;
        let group = groups.get(key);
        if (group === undefined) {
          group = {
            portName,
            port: containerPort,
            protocol: servicePort.protocol,
            addressFamily: family,
            endpoints: [],
          };
          if (servicePort.appProtocol !== undefined) group.appProtocol = servicePort.appProtocol;
          groups.set(key, group);
        }
        group.endpoints.push(endpoint);
      }
    }
  }
  for (const group of groups.values()) {
    group.endpoints.sort((a, b) => compareStrings(a.address, b.address));
  }
  return {
    groups: [...groups.values()].sort(
      (a, b) =>
        compareStrings(a.portName, b.portName) ||
        compareStrings(a.addressFamily, b.addressFamily) ||
        a.port - b.port,
    ),
    issues: [...issues.values()].sort(
      (a, b) => compareStrings(a.path, b.path) || compareStrings(a.pod ?? "", b.pod ?? ""),
    ),
  };
}

/**
 * True when every probe of the port's group has a result and each one that fails is a check that ran and failed
 * (`isCheckFailure`), and no probe of the pod cannot run: only then may fail-open publish the endpoint.
 */
function failsOnlyChecks(
  probes: readonly ResolvedProbe[],
  unrunnable: readonly UnrunnableProbe[],
  idOf: (probe: ResolvedProbe["probe"]) => string,
  states: ProbeStates,
): boolean {
  if (unrunnable.length > 0) return false;
  return probes.every(({ probe }) => {
    const state = states.get(idOf(probe));
    return state !== undefined && (state.passing || isCheckFailure(state.reason ?? "Error"));
  });
}

/** The first failing probe in spec order among the port's group and the probes that cannot run at all. */
function firstFailure(
  probes: readonly ResolvedProbe[],
  unrunnable: readonly UnrunnableProbe[],
  address: string,
  idOf: (probe: ResolvedProbe["probe"]) => string,
  states: ProbeStates,
): EndpointFailure | undefined {
  let failure: EndpointFailure | undefined;
  for (const { index, probe, port } of probes) {
    const targetId = idOf(probe);
    const state = states.get(targetId);
    if (state?.passing === true) continue;
    failure = {
      probeIndex: index,
      failingProbe: describeProbe(probe, port),
      reason: state?.reason ?? "NotProbedYet",
      message: state?.message ?? (state === undefined ? "no probe result yet" : "probe failing"),
      targetId,
    };
    break;
  }
  // Probes are in spec order in both lists, so the earliest unrunnable one is the only candidate.
  const [first] = unrunnable;
  if (first !== undefined && (failure === undefined || first.index < failure.probeIndex)) {
    return {
      probeIndex: first.index,
      failingProbe: first.description,
      reason: first.reason,
      message: first.message,
      targetId: unrunnableTargetId(address, first),
    };
  }
  return failure;
}
