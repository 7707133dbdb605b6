/**
 * What the controller watches. Every replica keeps these caches warm, leading or not, so a new leader can start
 * at once: SWHs, Services and Nodes cluster-wide, our EndpointSlices (by the managed-by label), and the agents'
 * heartbeat Leases in the install namespace.
 */
import type { KubernetesObject, V1EndpointSlice, V1Lease, V1Node, V1Service } from "@kubernetes/client-node";
import { GROUP, LABEL_MANAGED_BY, MANAGED_BY, PLURAL, VERSION } from "@swh/crd-types";
import { allSynced, type Informer, startInformer } from "@swh/kube";
import { SliceIndex } from "@swh/slice-writer";
import type { ControllerIo, ControllerSettings } from "../controller-options.js";

/** The informers, and the slice informer's objects indexed by SWH and by node (fed by `routeNotifications`). */
export interface ControllerCaches {
  /** Plain JSON (string timestamps), which client-node's object types do not describe. */
  swhs: Informer<KubernetesObject>;
  services: Informer<V1Service>;
  slices: Informer<V1EndpointSlice>;
  nodes: Informer<V1Node>;
  leases: Informer<V1Lease>;
  index: SliceIndex;
}

/** Where the informers connect, log and count restarts; `namespace` is the install namespace. */
export type WatchOptions = Pick<ControllerIo, "kubeConfig" | "logger" | "kubeMetrics" | "signal"> &
  Pick<ControllerSettings, "namespace" | "resyncMs">;

/** Starts the informers (they sync in the background; see `cachesSynced`). */
export function watchCluster(opts: WatchOptions): ControllerCaches {
  const { kubeConfig, logger, signal, namespace } = opts;
  const common = {
    kubeConfig,
    logger,
    signal,
    metrics: opts.kubeMetrics,
    ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}),
  };
  const start = <T extends KubernetesObject>(name: string, path: string, labelSelector?: string) =>
    startInformer<T>({ ...common, name, path, ...(labelSelector === undefined ? {} : { labelSelector }) });
  return {
    // SWHs stay plain JSON (string timestamps): client-node has no model for them.
    swhs: start(PLURAL, `/apis/${GROUP}/${VERSION}/${PLURAL}`),
    services: start<V1Service>("services", "/api/v1/services"),
    slices: start<V1EndpointSlice>(
      "endpointslices",
      "/apis/discovery.k8s.io/v1/endpointslices",
      `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
    ),
    nodes: start<V1Node>("nodes", "/api/v1/nodes"),
    leases: start<V1Lease>("leases", `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`),
    index: new SliceIndex(),
  };
}

/** Resolves true once every informer has listed, false if `signal` aborted first; rejects on other failures. */
export async function cachesSynced(caches: ControllerCaches, signal: AbortSignal): Promise<boolean> {
  const { swhs, services, slices, nodes, leases } = caches;
  try {
    await allSynced([swhs, services, slices, nodes, leases]);
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}
