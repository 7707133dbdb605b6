/**
 * Counts ready endpoints per Service among the EndpointSlices of one manager, from a bench-side informer, and
 * resolves when every expected Service has all of them: how the scale benchmark sees "the slices exist" for
 * kube-controller-manager's slices and for ours alike.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { Informer } from "@swh/kube";

const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
const LABEL_SERVICE_NAME = "kubernetes.io/service-name";

/** Ready endpoints per `kubernetes.io/service-name` over the slices `managedBy` writes. */
export function readyByService(slices: readonly V1EndpointSlice[], managedBy: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const slice of slices) {
    const labels = slice.metadata?.labels ?? {};
    const service = labels[LABEL_SERVICE_NAME];
    if (labels[LABEL_MANAGED_BY] !== managedBy || service === undefined) continue;
    const ready = (slice.endpoints ?? []).filter((e) => e.conditions?.ready === true).length;
    out.set(service, (out.get(service) ?? 0) + ready);
  }
  return out;
}

/**
 * Resolves when `services` Services each have `endpoints` ready endpoints in slices `managedBy` writes, and
 * `alsoDone()` (another condition checked on the same events) holds. Checks at most once per event-loop turn.
 */
export function whenAllReady(opts: {
  slices: Informer<V1EndpointSlice>;
  managedBy: string;
  services: number;
  endpoints: number;
  alsoDone?: () => boolean;
  more?: readonly Informer<unknown>[];
}): Promise<void> {
  return new Promise((resolve) => {
    let scheduled = false;
    const check = () => {
      scheduled = false;
      const complete = [...readyByService(opts.slices.list(), opts.managedBy).values()].filter(
        (n) => n >= opts.endpoints,
      ).length;
      if (complete >= opts.services && (opts.alsoDone?.() ?? true)) resolve();
    };
    const schedule = () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(check);
    };
    for (const informer of [opts.slices, ...(opts.more ?? [])]) {
      informer.on("add", schedule);
      informer.on("update", schedule);
    }
    schedule();
  });
}
