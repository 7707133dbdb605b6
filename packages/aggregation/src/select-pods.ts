import type { PodInfo } from "./types.js";

/**
 * Returns the pods whose labels match every entry of `selector`, in input order. An empty or missing selector
 * selects no pods (Service semantics, SPEC §2.1). When `namespace` is given, only pods of that namespace match,
 * as a Service only selects pods of its own namespace.
 */
function selectPods(
  selector: Readonly<Record<string, string>> | undefined,
  pods: readonly PodInfo[],
  namespace?: string,
): PodInfo[] {
  const entries = Object.entries(selector ?? {});
  if (entries.length === 0) return [];
  return pods.filter(
    (pod) =>
      (namespace === undefined || pod.namespace === namespace) &&
      entries.every(([key, value]) => pod.labels[key] === value),
  );
}

/**
 * Tells whether a selected pod is a candidate endpoint (SPEC §3.4): it has an IP, is not Succeeded/Failed and,
 * when `nodeName` is given, runs on that node. Terminating pods stay candidates (they keep being probed).
 */
function isCandidate(pod: PodInfo, nodeName?: string): boolean {
  if (nodeName !== undefined && pod.nodeName !== nodeName) return false;
  if (pod.phase === "Succeeded" || pod.phase === "Failed") return false;
  return pod.ips.length > 0;
}

/** Returns the candidate pods of an SWH (selected, same namespace, eligible), sorted by namespace/name. */
export function candidatePods(
  swh: { namespace: string; spec: { selector?: Readonly<Record<string, string>> } },
  pods: readonly PodInfo[],
  nodeName?: string,
): PodInfo[] {
  return selectPods(swh.spec.selector, pods, swh.namespace)
    .filter((pod) => isCandidate(pod, nodeName))
    .sort((a, b) => compareStrings(podKey(a), podKey(b)));
}

/** `namespace/name` of a pod, as used in issues and logs. */
export function podKey(pod: { namespace: string; name: string }): string {
  return `${pod.namespace}/${pod.name}`;
}

/** Code-unit string order, independent of locale (so results are identical on every machine). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
