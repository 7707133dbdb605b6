/**
 * Static check of an SWH's probes against its Service ports (SPEC §3.1): a probe whose numeric target port no
 * Service port sends traffic to gates nothing, which is almost always a mistake; a probe of a mode this version
 * cannot run fails on every port of every pod (`UnsupportedMode`, fail closed). Named ports resolve per pod, so
 * they can only be judged by the agents (they report `PortNotFound`).
 */
import { describeValue, isProbeMode, type ServiceWithHealthchecksSpec } from "./types.js";

/** One message per probe that cannot run or targets a port no Service port uses; empty when all are fine. */
export function checkProbePorts(spec: Readonly<ServiceWithHealthchecksSpec>): string[] {
  const ports = spec.ports ?? [];
  const anyNamedTarget = ports.some((p) => typeof p.targetPort === "string" && p.targetPort !== "");
  const used = new Set<number>();
  const usedNames = new Set<string>();
  for (const port of ports) {
    const target = port.targetPort;
    if (typeof target === "number") used.add(target);
    else if (target === undefined || target === "") used.add(port.port);
    else usedNames.add(target);
  }
  const problems: string[] = [];
  (spec.healthcheck?.probes ?? []).forEach((probe, index) => {
    if (!isProbeMode(probe.mode)) {
      problems.push(
        `spec.healthcheck.probes[${index}].mode ${describeValue(probe.mode)} is not supported by this version; the probe fails (UnsupportedMode) on every port of every pod`,
      );
      return;
    }
    const target =
      probe.tcp?.targetPort ??
      probe.http?.targetPort ??
      probe.postgreSQL?.targetPort ??
      probe.grpc?.targetPort;
    if (typeof target !== "number") return;
    // A named Service targetPort may resolve to this number on some pods.
    if (used.has(target) || anyNamedTarget) return;
    problems.push(
      `spec.healthcheck.probes[${index}] (${probe.mode}) targets port ${target}, which no Service port sends traffic to`,
    );
  });
  return problems;
}
