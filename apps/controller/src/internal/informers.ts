/**
 * What the controller watches. Every replica keeps these caches warm, leading or not, so a new leader can start
 * at once: SWHs, Services and Nodes cluster-wide, our EndpointSlices (by the managed-by label), and the agents'
 * heartbeat Leases in the install namespace.
 */
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubernetesListObject,
  type KubernetesObject,
  type V1EndpointSlice,
  type V1Lease,
  type V1Node,
  type V1Service,
} from "@kubernetes/client-node";
import { GROUP, LABEL_MANAGED_BY, MANAGED_BY, PLURAL, VERSION } from "@swh/crd-types";
import { allSynced, type Informer, type InformerOptions, type ListPage, startInformer } from "@swh/kube";
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
  const { kubeConfig, namespace } = opts;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  const common = { kubeConfig, logger: opts.logger, metrics: opts.kubeMetrics, signal: opts.signal };
  const start = <T extends KubernetesObject>(
    o: Pick<InformerOptions<T>, "name" | "path" | "list" | "labelSelector">,
  ) => startInformer<T>({ ...common, ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}), ...o });
  const labelSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
  const swhs = (page: ListPage) =>
    custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, ...page });
  return {
    swhs: start({
      name: PLURAL,
      path: `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      list: (page) => swhs(page) as Promise<KubernetesListObject<KubernetesObject>>,
    }),
    services: start({
      name: "services",
      path: "/api/v1/services",
      list: (page) => core.listServiceForAllNamespaces(page),
    }),
    slices: start({
      name: "endpointslices",
      path: "/apis/discovery.k8s.io/v1/endpointslices",
      labelSelector,
      list: (page) => discovery.listEndpointSliceForAllNamespaces({ labelSelector, ...page }),
    }),
    nodes: start({ name: "nodes", path: "/api/v1/nodes", list: (page) => core.listNode(page) }),
    leases: start({
      name: "leases",
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      list: (page) => coordination.listNamespacedLease({ namespace, ...page }),
    }),
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
