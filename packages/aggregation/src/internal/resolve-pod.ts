/**
 * Per-pod resolution shared by the endpoint aggregation and the probe-target planner, so both always agree on
 * which probe gates which port of which pod — and on which probes cannot run at all.
 *
 * Fail closed (SPEC §10): a probe that cannot run on a pod (its named targetPort is no container port of the pod,
 * it has no targetPort, or its mode is one this version does not run) is not dropped: it fails on *every* port of
 * that pod. Which port it was meant for is exactly the fact that is missing, and gating every port is what kubelet
 * does with a readiness probe that cannot run (the pod leaves every Service). Gating none would publish a pod whose
 * check never ran. ADR 0015.
 */
import { type DefaultedProbeSpec, type DefaultedServicePort, isProbeMode, PROBE_MODES } from "@swh/crd-types";
import { describeValue } from "@swh/crd-types/internal";
import { describeProbe, probeSubObjectKey, probeTargetId, probeTargetPort } from "../probe-identity.js";
import { resolveProbeTargetPort, resolveServiceTargetPort } from "../resolve-port.js";
import { podKey } from "../select-pods.js";
import { AGGREGATION_ISSUE_KINDS, type AggregationIssue, type PodInfo, type SwhInput } from "../types.js";
import { probeForPod } from "./probe-for-pod.js";

/** A Service port (by its index in `spec.ports`) and the container port it resolves to on one pod. */
interface ResolvedServicePort {
  index: number;
  servicePort: DefaultedServicePort;
  containerPort: number;
}

/** A probe (by its index in `spec.healthcheck.probes`) and the container port it resolves to on one pod. */
export interface ResolvedProbe {
  index: number;
  probe: DefaultedProbeSpec;
  port: number;
}

/** A probe (by its index) that cannot run on one pod: it fails on every port of the pod with `reason`. */
export interface UnrunnableProbe {
  index: number;
  /** How the probe is shown in the reasons annotation and status, e.g. `TCP :smtpp` or `UDP`. */
  description: string;
  reason: "PortNotFound" | "UnsupportedMode";
  message: string;
}

/** What `resolvePod` found for one pod. */
export interface ResolvedPod {
  ports: ResolvedServicePort[];
  /** Probes whose resolved port at least one resolved Service port uses (the only ones worth running). */
  probes: ResolvedProbe[];
  /** Probes that cannot run on this pod; each fails on every one of `ports` (see the file comment). */
  unrunnable: UnrunnableProbe[];
  issues: AggregationIssue[];
}

/** Resolves every Service port and probe of `swh` against `pod`, reporting what does not resolve or gates nothing. */
export function resolvePod(swh: SwhInput, pod: PodInfo): ResolvedPod {
  const issues: AggregationIssue[] = [];
  const ports: ResolvedServicePort[] = [];
  swh.spec.ports.forEach((servicePort, index) => {
    const containerPort = resolveServiceTargetPort(servicePort, pod.containerPorts);
    if (containerPort === undefined) {
      issues.push({
        kind: AGGREGATION_ISSUE_KINDS.targetPortNotFound,
        path: `spec.ports[${index}].targetPort`,
        pod: podKey(pod),
        message: `targetPort "${servicePort.targetPort}" (${servicePort.protocol}) is not a container port of pod ${podKey(pod)}; the pod is not published on this port`,
      });
      return;
    }
    ports.push({ index, servicePort, containerPort });
  });
  const used = new Set(ports.map((p) => p.containerPort));
  const probes: ResolvedProbe[] = [];
  const unrunnable: UnrunnableProbe[] = [];
  swh.spec.healthcheck.probes.forEach((probe, index) => {
    if (!isProbeMode(probe.mode)) {
      const message = `mode ${describeValue(probe.mode)} is not supported by this version (${PROBE_MODES.join(", ")}); the probe cannot run and fails on every port of every pod`;
      issues.push({
        kind: AGGREGATION_ISSUE_KINDS.probeModeUnsupported,
        path: `spec.healthcheck.probes[${index}].mode`,
        message,
      });
      unrunnable.push({ index, description: describeProbe(probe, ""), reason: "UnsupportedMode", message });
      return;
    }
    const path = `spec.healthcheck.probes[${index}].${probeSubObjectKey(probe)}.targetPort`;
    const target = probeTargetPort(probe);
    const port = target === undefined ? undefined : resolveProbeTargetPort(target, pod.containerPorts);
    if (port === undefined) {
      const cause = (of: string) =>
        (target === undefined
          ? `the probe has no ${probeSubObjectKey(probe)}.targetPort`
          : `probe targetPort "${describeValue(target)}" is not a container port of ${of}`) +
        "; the probe cannot run and fails on every port of the pod";
      issues.push({
        kind: AGGREGATION_ISSUE_KINDS.probePortNotFound,
        path,
        pod: podKey(pod),
        message: cause(`pod ${podKey(pod)}`),
      });
      // The endpoint's message leaves the pod out (the endpoint names it), so status merges equal problems.
      unrunnable.push({
        index,
        description: describeProbe(probe, describeValue(target ?? "?")),
        reason: "PortNotFound",
        message: cause("the pod"),
      });
      return;
    }
    if (!used.has(port)) {
      issues.push({
        kind: AGGREGATION_ISSUE_KINDS.probePortUnused,
        path,
        pod: podKey(pod),
        message: `probe port ${port} is the target of no Service port of pod ${podKey(pod)}; the probe gates nothing`,
      });
      return;
    }
    // Filled in for this pod (ADR 0036): the target id, planned and aggregated alike, follows the filled-in probe.
    probes.push({ index, probe: probeForPod(probe, pod), port });
  });
  return { ports, probes, unrunnable, issues };
}

/**
 * The target id an endpoint failure names for a probe that cannot run: no probe target exists for it, so the id
 * is fixed by the address and the probe's index (it cannot equal a real target id, which starts with the mode).
 */
export function unrunnableTargetId(address: string, probe: UnrunnableProbe): string {
  return `unrunnable/${address}/probes[${probe.index}]`;
}

/**
 * The probe target id of `resolved` (a probe of `swh` resolved on `pod`) at `address`: the one place both the
 * planner and the aggregation compute it, so a state reported for a planned target is found when aggregating.
 */
export function resolvedTargetId(
  swh: SwhInput,
  pod: PodInfo,
  address: string,
  resolved: ResolvedProbe,
): string {
  const { initialDelaySeconds, periodSeconds, transitionPeriodSeconds, downPeriodSeconds } =
    swh.spec.healthcheck;
  return probeTargetId({
    address,
    port: resolved.port,
    namespace: pod.namespace,
    probe: resolved.probe,
    initialDelaySeconds,
    periodSeconds,
    ...(transitionPeriodSeconds === undefined ? {} : { transitionPeriodSeconds }),
    ...(downPeriodSeconds === undefined ? {} : { downPeriodSeconds }),
  });
}
