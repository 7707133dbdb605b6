import { resolvedTargetId, resolvePod } from "./internal/resolve-pod.js";
import { addressesByFamily } from "./resolve-port.js";
import { candidatePods, compareStrings } from "./select-pods.js";
import type { PodInfo, ProbeTarget, SwhInput } from "./types.js";

/**
 * Returns the probe targets the agent must run for `swhs` over `pods`, one per distinct (pod address, canonical
 * probe config), sorted by id. Identical probes of different SWHs on the same pod share one target. Probes of
 * terminating pods and of SWHs with `publishNotReadyAddresses` are included (their results are still reported);
 * probes that gate no Service port are not (aggregateEndpoints reports them as issues). When `nodeName` is given,
 * pods of other nodes are ignored.
 */
export function planProbeTargets(
  swhs: readonly SwhInput[],
  pods: readonly PodInfo[],
  opts: { nodeName?: string } = {},
): ProbeTarget[] {
  const targets = new Map<string, ProbeTarget>();
  for (const swh of swhs) {
    const { initialDelaySeconds, periodSeconds, transitionPeriodSeconds, downPeriodSeconds } =
      swh.spec.healthcheck;
    for (const pod of candidatePods(swh, pods, opts.nodeName)) {
      for (const resolved of resolvePod(swh, pod).probes) {
        const { probe, port } = resolved;
        for (const { address } of addressesByFamily(pod.ips)) {
          const id = resolvedTargetId(swh, pod, address, resolved);
          if (targets.has(id)) continue;
          const target: ProbeTarget = {
            id,
            address,
            port,
            probe,
            namespace: pod.namespace,
            pod: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
            initialDelaySeconds,
            periodSeconds,
          };
          if (pod.eligibleSince !== undefined) target.eligibleSince = pod.eligibleSince;
          if (transitionPeriodSeconds !== undefined) target.transitionPeriodSeconds = transitionPeriodSeconds;
          if (downPeriodSeconds !== undefined) target.downPeriodSeconds = downPeriodSeconds;
          targets.set(id, target);
        }
      }
    }
  }
  return [...targets.values()].sort((a, b) => compareStrings(a.id, b.id));
}

/**
 * Milliseconds from `now` until the target's first probe may run: `initialDelaySeconds` after the pod became
 * eligible, 0 once that moment has passed. Without `eligibleSince` the full delay applies from `now`.
 */
export function initialDelayRemainingMs(
  target: Pick<ProbeTarget, "initialDelaySeconds" | "eligibleSince">,
  now: number,
): number {
  const delayMs = target.initialDelaySeconds * 1000;
  if (target.eligibleSince === undefined) return delayMs;
  const since = Date.parse(target.eligibleSince);
  if (Number.isNaN(since)) return delayMs;
  return Math.max(0, since + delayMs - now);
}
