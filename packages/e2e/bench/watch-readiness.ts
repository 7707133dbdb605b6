/** The bench's view of its one endpoint: when the slice first showed it ready / not ready, through a watch. */
import { type KubeConfig, Watch } from "@kubernetes/client-node";
import { LABEL_MANAGED_BY, MANAGED_BY } from "@swh/crd-types";

/** Readiness of the first endpoint of our slices in one namespace, as a watch sees it. */
export interface ReadinessWatch {
  /** Resolves with the time (`performance.now()`) the endpoint was first seen with readiness `ready`. */
  until(ready: boolean, timeoutMs: number): Promise<number>;
  stop(): void;
}

/** Watches the bench slice and resolves `until(ready)` with the time the endpoint was first seen in that state. */
export function watchReadiness(kc: KubeConfig, namespace: string): ReadinessWatch {
  let current: boolean | undefined;
  let changedAt = 0;
  let waiter: { ready: boolean; resolve: (t: number) => void } | undefined;
  let controller: AbortController | undefined;
  void new Watch(kc)
    .watch(
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      { labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY}` },
      (_phase, slice: { endpoints?: { conditions?: { ready?: boolean } }[] }) => {
        const ready = slice.endpoints?.[0]?.conditions?.ready === true;
        if (slice.endpoints?.length && ready !== current) {
          current = ready;
          changedAt = performance.now();
          if (waiter?.ready === ready) waiter.resolve(changedAt);
        }
      },
      (err) => {
        if (err) process.stderr.write(`watch ended: ${String(err)}\n`);
      },
    )
    .then((c) => {
      controller = c;
    });
  return {
    until(ready: boolean, timeoutMs: number): Promise<number> {
      // Flips call this in the same tick as they change the backend, so the slice cannot be there yet.
      if (current === ready) return Promise.resolve(changedAt);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`slice did not become ready=${ready} in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiter = {
          ready,
          resolve: (t) => {
            clearTimeout(timer);
            waiter = undefined;
            resolve(t);
          },
        };
      });
    },
    stop() {
      controller?.abort();
    },
  };
}
