/**
 * Per-pod resolution shared by the endpoint aggregation and the probe-target planner, so both always agree on
 * which probe gates which port of which pod.
 */
import type { DefaultedProbeSpec, DefaultedServicePort } from "@swh/crd-types";
import { probeSubObjectKey, probeTargetId, probeTargetPort } from "../probe-identity.js";
import { resolveProbeTargetPort, resolveServiceTargetPort } from "../resolve-port.js";
import { podKey } from "../select-pods.js";
import { AGGREGATION_ISSUE_KINDS, type AggregationIssue, type PodInfo, type SwhInput } from "../types.js";

/** A Service port (by its index in `spec.ports`) and the container port it resolves to on one pod. */
export interface ResolvedServicePort {
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

/** What `resolvePod` found for one pod. */
export interface ResolvedPod {
  ports: ResolvedServicePort[];
  /** Probes whose resolved port at least one resolved Service port uses (the only ones worth running). */
  probes: ResolvedProbe[];
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
  swh.spec.healthcheck.probes.forEach((probe, index) => {
    const path = `spec.healthcheck.probes[${index}].${probeSubObjectKey(probe)}.targetPort`;
    const target = probeTargetPort(probe);
    const port = target === undefined ? undefined : resolveProbeTargetPort(target, pod.containerPorts);
    if (port === undefined) {
      issues.push({
        kind: AGGREGATION_ISSUE_KINDS.probePortNotFound,
        path,
        pod: podKey(pod),
        message: `probe targetPort "${target ?? ""}" is not a container port of pod ${podKey(pod)}; the probe gates no port of it`,
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
    probes.push({ index, probe, port });
  });
  return { ports, probes, issues };
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
  const { initialDelaySeconds, periodSeconds } = swh.spec.healthcheck;
  return probeTargetId({
    address,
    port: resolved.port,
    namespace: pod.namespace,
    probe: resolved.probe,
    initialDelaySeconds,
    periodSeconds,
  });
}
