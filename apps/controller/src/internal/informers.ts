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
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1EndpointSlice,
  type V1Lease,
  type V1Node,
  type V1Service,
} from "@kubernetes/client-node";
import { GROUP, LABEL_MANAGED_BY, MANAGED_BY, PLURAL, VERSION } from "@swh/crd-types";
import { type Informer, type InformerOptions, type KubeMetrics, type Logger, startInformer } from "@swh/kube";
import { SliceIndex } from "@swh/slice-writer";

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
export interface WatchOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  logger: Logger;
  kubeMetrics: KubeMetrics;
  signal: AbortSignal;
  resyncMs?: number;
}

/** Starts the informers (they sync in the background; see `cachesSynced`). */
export function watchCluster(opts: WatchOptions): ControllerCaches {
  const kc = opts.kubeConfig;
  const [core, custom, discovery, coordination] = [
    kc.makeApiClient(CoreV1Api),
    kc.makeApiClient(CustomObjectsApi),
    kc.makeApiClient(DiscoveryV1Api),
    kc.makeApiClient(CoordinationV1Api),
  ];
  const start = <T extends KubernetesObject>(
    name: string,
    path: string,
    list: InformerOptions<T>["list"],
    labelSelector?: string,
  ) =>
    startInformer<T>({
      kubeConfig: kc,
      logger: opts.logger,
      metrics: opts.kubeMetrics,
      signal: opts.signal,
      ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}),
      ...(labelSelector === undefined ? {} : { labelSelector }),
      name,
      path,
      list,
    });
  const ours = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
  const { namespace } = opts;
  return {
    swhs: start(
      PLURAL,
      `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      (page) =>
        custom.listClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          ...page,
        }) as Promise<KubernetesListObject<KubernetesObject>>,
    ),
    services: start("services", "/api/v1/services", (page) => core.listServiceForAllNamespaces(page)),
    slices: start(
      "endpointslices",
      "/apis/discovery.k8s.io/v1/endpointslices",
      (page) => discovery.listEndpointSliceForAllNamespaces({ labelSelector: ours, ...page }),
      ours,
    ),
    nodes: start("nodes", "/api/v1/nodes", (page) => core.listNode(page)),
    leases: start("leases", `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`, (page) =>
      coordination.listNamespacedLease({ namespace, ...page }),
    ),
    index: new SliceIndex(),
  };
}

/** Resolves true once every informer has listed, false if `signal` aborted first; rejects on other failures. */
export async function cachesSynced(caches: ControllerCaches, signal: AbortSignal): Promise<boolean> {
  const { swhs, services, slices, nodes, leases } = caches;
  try {
    await Promise.all([swhs, services, slices, nodes, leases].map((i) => i.synced()));
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}
