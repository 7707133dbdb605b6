/**
 * Wires the controller: informers (every replica keeps warm caches), two work queues (SWHs by
 * `namespace/name`, nodes by name) whose workers run only while this replica leads, and the handlers that turn
 * notifications into keys. Handlers never do work themselves (level-based reconcile).
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
import {
  GROUP,
  LABEL_MANAGED_BY,
  MANAGED_BY,
  objectKey,
  PLURAL,
  type ServiceWithHealthchecks,
  VERSION,
} from "@swh/crd-types";
import {
  type DroppedKey,
  type Informer,
  isTerminalError,
  type KubeMetrics,
  type Logger,
  startInformer,
  type WorkContext,
  WorkQueue,
  type WorkResult,
} from "@swh/kube";
import { agentLeaseNode, SliceIndex } from "@swh/slice-writer";
import type { Registry } from "prom-client";
import { type ControllerApi, createControllerApi } from "./internal/controller-api.js";
import { type ControllerMetrics, createControllerMetrics } from "./internal/controller-metrics.js";
import { reconcileNode } from "./internal/reconcile-node.js";
import {
  type EventRecorderLike,
  reconcileSwh,
  reportReconcileFailure,
  type SwhReconcileDeps,
} from "./internal/reconcile-swh.js";
import { APP_VERSION } from "./version.js";

/**
 * SWH reconciles running at once. A reconcile mostly waits on the API server (Service write, status patch), so
 * several in flight keep a burst of new SWHs from queueing behind each other; the queue never runs one key twice.
 */
const SWH_WORKERS = 8;

/** Runs `onStartedLeading` while this process holds the leader Lease (the `@swh/kube` contract). */
export type LeaderElector = (opts: {
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading(): void;
  signal: AbortSignal;
}) => Promise<void>;

/** Everything the controller needs; I/O dependencies are injected so tests run it in-process. */
export interface ControllerOptions {
  kubeConfig: KubeConfig;
  /** Install namespace: where the agents' heartbeat Leases live. */
  namespace: string;
  nodeNotReadyGraceMs: number;
  logger: Logger;
  registry: Registry;
  kubeMetrics: KubeMetrics;
  events: EventRecorderLike;
  /** Leader election; undefined = act as leader at once (`--leader-elect=false`). */
  elect?: LeaderElector;
  signal: AbortSignal;
  api?: ControllerApi;
  now?: () => Date;
  resyncMs?: number;
  /** Deadline of one reconcile (its writes are aborted after it); default the queue's 30 s (ADR 0022). */
  reconcileTimeoutMs?: number;
  /** Failed retries in a row after which a key waits for its next event; default the queue's 15 (ADR 0022). */
  maxRetries?: number;
}

/** A running controller. */
export interface RunningController {
  /** True once every informer has synced (the `/readyz` answer). */
  ready(): boolean;
  /** True while this replica's workers run. */
  leading(): boolean;
  /** Resolves once `signal` aborted and all work (and the leader Lease release) finished. */
  done: Promise<"stopped">;
}

/** Starts the controller; resolves once the informers are started (not synced). */
export function runController(opts: ControllerOptions): RunningController {
  const log = opts.logger;
  const kc = opts.kubeConfig;
  const now = opts.now ?? (() => new Date());
  const api = opts.api ?? createControllerApi(kc);
  const metrics: ControllerMetrics = createControllerMetrics(opts.registry, APP_VERSION);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const common = {
    kubeConfig: kc,
    logger: log,
    metrics: opts.kubeMetrics,
    signal: opts.signal,
    ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}),
  };
  const sliceSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;

  // Custom resources stay plain JSON (string timestamps), which client-node's object type does not describe.
  const swhs = startInformer<KubernetesObject>({
    ...common,
    name: PLURAL,
    path: `/apis/${GROUP}/${VERSION}/${PLURAL}`,
    list: (page) =>
      custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, ...page }) as Promise<
        KubernetesListObject<KubernetesObject>
      >,
  });
  const services: Informer<V1Service> = startInformer<V1Service>({
    ...common,
    name: "services",
    path: "/api/v1/services",
    list: (page) => core.listServiceForAllNamespaces(page),
  });
  const slices: Informer<V1EndpointSlice> = startInformer<V1EndpointSlice>({
    ...common,
    name: "endpointslices",
    path: "/apis/discovery.k8s.io/v1/endpointslices",
    labelSelector: sliceSelector,
    list: (page) => discovery.listEndpointSliceForAllNamespaces({ labelSelector: sliceSelector, ...page }),
  });
  const nodes: Informer<V1Node> = startInformer<V1Node>({
    ...common,
    name: "nodes",
    path: "/api/v1/nodes",
    list: (page) => core.listNode(page),
  });
  const leases: Informer<V1Lease> = startInformer<V1Lease>({
    ...common,
    name: "leases",
    path: `/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases`,
    list: (page) => coordination.listNamespacedLease({ namespace: opts.namespace, ...page }),
  });
  const informers = [swhs, services, slices, nodes, leases];

  const queueOptions = {
    metrics: opts.kubeMetrics,
    logger: log,
    ...(opts.reconcileTimeoutMs === undefined ? {} : { timeoutMs: opts.reconcileTimeoutMs }),
    ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
  };
  // Set while leading: an SWH the queue stops retrying gets its last error in status.
  let reportDropped: ((dropped: DroppedKey<string>) => Promise<void>) | undefined;
  const swhQueue = new WorkQueue<string>({
    name: "swh",
    ...queueOptions,
    onDropped: (dropped) => reportDropped?.(dropped),
  });
  const nodeQueue = new WorkQueue<string>({ name: "node", ...queueOptions });
  const index = new SliceIndex();
  const staleNodes = new Set<string>();
  const notReadyNodes = new Set<string>();
  const writtenStatus: SwhReconcileDeps["writtenStatus"] = new Map();

  for (const event of ["add", "update", "delete"] as const) {
    swhs.on(event, (swh) => swhQueue.add(objectKey(swh.metadata ?? {})));
    services.on(event, (svc) => {
      if (swhs.get(svc.metadata?.name ?? "", svc.metadata?.namespace) !== undefined)
        swhQueue.add(objectKey(svc.metadata ?? {}));
    });
    nodes.on(event, (node) => nodeQueue.add(node.metadata?.name ?? ""));
    leases.on(event, (lease) => {
      // A heartbeat Lease names its node in full in spec.holderIdentity (its name may be a hash).
      const node = agentLeaseNode(lease);
      if (node !== undefined) nodeQueue.add(node);
    });
    slices.on(event, (slice) => {
      // Both versions matter: an update can move a slice to another SWH or node, or make it unreadable.
      const before = index.remove(slice);
      const after = event === "delete" ? undefined : index.upsert(slice);
      for (const entry of [before, after]) {
        if (entry === undefined) continue;
        swhQueue.add(entry.swhKey);
        nodeQueue.add(entry.view.nodeName);
      }
    });
  }

  let synced = false;
  let leading = false;
  const done = (async (): Promise<"stopped"> => {
    try {
      await Promise.all(informers.map((i) => i.synced()));
    } catch (err) {
      if (opts.signal.aborted) return "stopped";
      throw err;
    }
    synced = true;
    log.info("caches synced", {
      swhs: swhs.list().length,
      nodes: nodes.list().length,
      slices: slices.list().length,
    });

    const lead = async (signal: AbortSignal) => {
      leading = true;
      const leadingSince = now();
      opts.kubeMetrics.leader.set(1);
      // A new leader starts from the whole world: every SWH and every node with slices or a Node object.
      for (const swh of swhs.list()) swhQueue.add(objectKey(swh.metadata ?? {}));
      for (const node of new Set([...nodes.list().map((n) => n.metadata?.name ?? ""), ...index.nodes()]))
        nodeQueue.add(node);
      const work = <K extends string>(
        queue: WorkQueue<K>,
        fn: (key: K, ctx: WorkContext) => Promise<WorkResult>,
        concurrency: number,
        timed: boolean,
      ) =>
        queue.run(
          async (key, ctx) => {
            // swh_reconcile_duration_seconds is about SWHs (deploy/METRICS.md); errors count both queues.
            const end = timed ? metrics.reconcileDuration.startTimer() : () => 0;
            try {
              return await fn(key, ctx);
            } catch (err) {
              // The queue logs the failure and retries with backoff; a terminal error (a malformed object,
              // reported in its status) is counted by the queue's swh_workqueue_dropped_total only.
              if (!isTerminalError(err)) metrics.reconcileErrors.inc();
              throw err;
            } finally {
              end();
            }
          },
          { concurrency, signal },
        );
      const swhDeps = (logger: Logger, runSignal: AbortSignal): SwhReconcileDeps => ({
        getSwh: (ns, name) => swhs.get(name, ns) as Readonly<ServiceWithHealthchecks> | undefined,
        getService: (ns, name) => services.get(name, ns),
        slicesOf: (key) => index.forSwh(key),
        staleNodes: () => staleNodes,
        notReadyNodes: () => notReadyNodes,
        api,
        events: opts.events,
        metrics,
        logger,
        now,
        writtenStatus,
        signal: runSignal,
      });
      reportDropped = (dropped) => reportReconcileFailure(dropped, swhDeps(dropped.logger, signal));
      await Promise.all([
        work(swhQueue, (key, ctx) => reconcileSwh(key, swhDeps(ctx.logger, ctx.signal)), SWH_WORKERS, true),
        work(
          nodeQueue,
          (name, ctx) =>
            reconcileNode(name, {
              getNode: (n) => nodes.get(n),
              getLease: (n) => leases.get(n, opts.namespace),
              slicesOnNode: (n) => index.forNode(n),
              staleNodes,
              notReadyNodes,
              enqueueSwh: (key) => swhQueue.add(key),
              api,
              events: opts.events,
              metrics,
              logger: ctx.logger,
              now,
              leadingSince,
              notReadyGraceMs: opts.nodeNotReadyGraceMs,
              signal: ctx.signal,
            }),
          1,
          false,
        ),
      ]);
    };
    const clearLeaderOnly = () => {
      leading = false;
      reportDropped = undefined;
      opts.kubeMetrics.leader.set(0);
      metrics.serviceEndpoints.reset();
      metrics.heartbeatStale.reset();
      metrics.notReadyAgentAlive.reset();
      staleNodes.clear();
      notReadyNodes.clear();
      writtenStatus.clear();
    };

    if (opts.elect === undefined) {
      await lead(opts.signal);
      clearLeaderOnly();
      return "stopped";
    }
    // Each term gets its own signal, aborted the moment leadership is lost; after a loss this replica stays a
    // candidate with warm caches, and a new term starts again from the whole world.
    const terms = new Set<Promise<void>>();
    await opts.elect({
      signal: opts.signal,
      onStartedLeading: (signal) => {
        log.info("started leading");
        const term = lead(signal).catch((err: unknown) => log.error("workers failed", { err }));
        terms.add(term);
        void term.finally(() => terms.delete(term));
      },
      onStoppedLeading: () => {
        if (!opts.signal.aborted) log.warn("lost leadership; all work stopped");
        clearLeaderOnly();
      },
    });
    await Promise.all(terms);
    clearLeaderOnly();
    return "stopped";
  })();

  return { ready: () => synced, leading: () => leading, done };
}
