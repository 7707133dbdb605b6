/**
 * Wires the agent together: informers → probe targets → probe scheduler → states → per-SWH work queue →
 * reconcile → slice writer. Decisions live in `internal/` as plain functions; this file only connects them to
 * the API server, timers and sockets, and is what `main` (and the integration tests, in-process) run.
 */
import {
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
  type V1EndpointSlice,
  type V1Pod,
} from "@kubernetes/client-node";
import {
  type PodInfo,
  type ProbeTarget,
  planNodeTargets,
  podInfoFromPod,
  swhInputFromObject,
  type TargetPlan,
  type TargetUser,
} from "@swh/aggregation";
import { LABEL_SERVICE_NAME, LABEL_SERVICE_PROXY_NAME, LABEL_TOPOLOGY_ZONE, objectKey } from "@swh/crd-types";
import {
  type CertificateFiles,
  cachedMetricsAccess,
  createKubeMetrics,
  createMetricsRegistry,
  EventRecorder,
  kubeMetricsAccess,
  type Logger,
  type MetricsAccess,
  type OpsServer,
  runHeartbeat,
  startHealthServer,
  startMetricsServer,
  type WorkContext,
  WorkQueue,
  WritePacer,
} from "@swh/kube";
import { ProbeResults, ProbeScheduler, probeBySpec } from "@swh/probes";
import {
  agentLeaseName,
  isOwnedSlice,
  reconcileSwhSlices,
  seedFromSlices,
  WrittenSlices,
} from "@swh/slice-writer";
import type { Registry } from "prom-client";
import type { BindAddress } from "./config.js";
import { createAgentMetrics, probeModeLabel, recordEndpointCounts } from "./internal/agent-metrics.js";
import { type CredentialsSecrets, startCredentialsSecrets } from "./internal/credentials-secrets.js";
import { recordEndpointTransitions } from "./internal/endpoint-events.js";
import {
  type AgentInformers,
  informersHaveSynced,
  informersSynced,
  startAgentInformers,
} from "./internal/informers.js";
import { ObjectProblems } from "./internal/object-problems.js";
import { PublicationLog } from "./internal/publication-log.js";
import { fetchService, PublishedSwhs } from "./internal/published-swhs.js";
import { runProbe } from "./internal/run-probe.js";
import { syncTargets } from "./internal/sync-targets.js";
import { writeCountedSlices } from "./internal/write-slices.js";
import { APP_VERSION } from "./version.js";

/** Options of `runAgent`; the defaults are the production values. */
export interface RunAgentOptions {
  kubeConfig: KubeConfig;
  nodeName: string;
  /** Namespace of the heartbeat Lease; no heartbeat when undefined. */
  namespace?: string | undefined;
  logger: Logger;
  /** Registry for /metrics; a new one with process metrics by default. */
  registry?: Registry;
  maxConcurrentProbes?: number;
  /** Namespaces whose credentials Secrets the agent reads (ADR 0020); none by default. */
  credentialsNamespaces?: readonly string[];
  /** How long a probe change waits for others to join it in one write. Default 5 ms. */
  coalesceMs?: number;
  /** Heartbeat renewal period; default 10 s. */
  heartbeatIntervalMs?: number;
  /** Heartbeat Lease duration; default 40 s. */
  leaseDurationSeconds?: number;
  /** Where /metrics is served (HTTPS, authorised callers only); none when undefined. */
  metricsBindAddress?: BindAddress | undefined;
  /** Serving certificate of /metrics, reloaded when it changes; undefined: self-signed at start-up. */
  metricsTls?: CertificateFiles | undefined;
  /** Who may read /metrics; default: the API server's TokenReview + SubjectAccessReview, cached briefly. */
  metricsAccess?: MetricsAccess;
  /** Where /healthz and /readyz are served (nothing else); none when undefined. */
  healthBindAddress?: BindAddress | undefined;
  /** SWHs reconciled at the same time. Default 4. */
  workers?: number;
  /** Informer re-list period (tests shorten it). */
  resyncMs?: number;
}

/** A running agent. */
export interface RunningAgent {
  readonly registry: Registry;
  /** Bound ports of the ops servers (0 ports resolved). */
  readonly ports: { metrics?: number; health?: number };
  /** True once every informer has synced and probing has started from the published state. */
  ready(): boolean;
  /** Stops watching, probing and writing; leaves every slice as it is (SPEC §3.6). */
  stop(): Promise<void>;
}

const TARGETS = "targets";
// Short on purpose: reaction time to a probe verdict is this plus one write. Changes arriving together still
// share a write, because the delay starts at the first change and the queue holds each SWH key once.
const DEFAULT_COALESCE_MS = 5;

/** Starts the agent and resolves once it has synced and started probing (see `RunningAgent`). */
export async function runAgent(opts: RunAgentOptions): Promise<RunningAgent> {
  const { kubeConfig, nodeName, logger } = opts;
  const log = logger.child({ node: nodeName });
  const stopper = new AbortController();
  const signal = stopper.signal;
  const registry = opts.registry ?? createMetricsRegistry();
  const kubeMetrics = createKubeMetrics(registry);
  // Declared before the metrics read it: /metrics may be scraped before probing starts.
  let scheduler: ProbeScheduler<ProbeTarget> | undefined;
  const metrics = createAgentMetrics(registry, APP_VERSION, () => scheduler);
  const coalesceMs = opts.coalesceMs ?? DEFAULT_COALESCE_MS;
  let started = false;

  const servers: OpsServer[] = [];
  const ports: { metrics?: number; health?: number } = {};
  const ready = () =>
    started && !signal.aborted && informersHaveSynced(informers) && credentials.hasSettled();
  try {
    if (opts.healthBindAddress) {
      // The health port has no authentication (the kubelet probes it), so it serves no metrics.
      const server = await startHealthServer({
        ...opts.healthBindAddress,
        ready,
        logger: log.child({ server: "health" }),
      });
      servers.push(server);
      ports.health = server.port;
    }
    if (opts.metricsBindAddress) {
      const server = await startMetricsServer({
        ...opts.metricsBindAddress,
        registry,
        access: opts.metricsAccess ?? cachedMetricsAccess(kubeMetricsAccess(kubeConfig)),
        certificateFiles: opts.metricsTls,
        commonName: "swh-agent",
        logger: log.child({ server: "metrics" }),
      });
      servers.push(server);
      ports.metrics = server.port;
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }

  const queue = new WorkQueue<string>({ name: "servicewithhealthchecks", metrics: kubeMetrics, logger: log });
  const written = new WrittenSlices();
  const pacer = new WritePacer();
  const events = new EventRecorder({
    component: "network.deckhouse.io/swh-agent",
    instance: nodeName,
    kubeConfig,
    logger: log,
    metrics: kubeMetrics,
  });
  const sliceApi = kubeConfig.makeApiClient(DiscoveryV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  // One malformed object never stops the others (ADR 0015): it is skipped per object and reported here.
  const problems = new ObjectProblems({ events, logger: log, nodeName });

  const informers: AgentInformers = startAgentInformers({
    kubeConfig,
    nodeName,
    logger: log,
    metrics: kubeMetrics,
    signal,
    ...(opts.resyncMs === undefined ? {} : { resyncMs: opts.resyncMs }),
  });
  const credentials: CredentialsSecrets = startCredentialsSecrets({
    kubeConfig,
    namespaces: opts.credentialsNamespaces ?? [],
    logger: log,
    metrics: kubeMetrics,
    signal,
    ...(opts.resyncMs === undefined ? {} : { resyncMs: opts.resyncMs }),
  });

  const pods = (): PodInfo[] =>
    informers.pods.list().flatMap((pod) => {
      try {
        const info = podInfoFromPod(pod as V1Pod);
        return info === undefined ? [] : [info];
      } catch (err) {
        problems.unreadablePod(pod as V1Pod, err);
        return [];
      }
    });
  const published: PublishedSwhs = new PublishedSwhs({
    cached: () => informers.services.list(),
    cachedOne: (namespace, name) => informers.services.get(name, namespace),
    hasSlices: (namespace, name) => ownSlices(namespace, name).length > 0,
    fetch: (namespace, name) => fetchService(core, namespace, name),
    changed: () => queue.add(TARGETS),
  });
  const swhInputs = () =>
    published.list().flatMap((obj) => {
      try {
        const input = swhInputFromObject(obj);
        return input === undefined ? [] : [input];
      } catch (err) {
        const { name = "", namespace = "", uid } = obj.metadata ?? {};
        problems.unprocessableSwh({ name, namespace, uid }, obj.spec, err);
        return [];
      }
    });
  const planTargets = (): TargetPlan => {
    const plan = planNodeTargets(swhInputs(), pods(), nodeName);
    for (const { swh, error } of plan.rejected) problems.unprocessableSwh(swh, swh.spec, error);
    return plan;
  };
  const ownSlices = (namespace: string, name: string): V1EndpointSlice[] => {
    const matches = (slice: V1EndpointSlice) =>
      slice.metadata?.namespace === namespace && isOwnedSlice(slice, { nodeName, swhName: name });
    return written.view(
      informers.slices.list().filter((s) => matches(s as V1EndpointSlice)),
      namespace,
      matches,
    );
  };
  const enqueueNamespace = (namespace: string | undefined) => {
    for (const svc of published.services()) {
      if (namespace === undefined || svc.metadata?.namespace === namespace) {
        queue.add(objectKey(svc.metadata ?? {}));
      }
    }
  };

  // Event handlers only enqueue keys; the worker reads current state (level-based).
  for (const event of ["add", "update", "delete"] as const) {
    informers.pods.on(event, (pod, old) => {
      // Kubelets update pod status often; only what the aggregation reads matters.
      if (event === "update" && old && samePodInfo(pod as V1Pod, old as V1Pod)) return;
      queue.add(TARGETS);
      enqueueNamespace(pod.metadata?.namespace);
    });
    // A Service carries its SWH's spec (ADR 0032): a change may change the probe targets and the slices.
    informers.services.on(event, (svc) => {
      published.observe(event, svc);
      queue.add(TARGETS);
      queue.add(objectKey(svc.metadata ?? {}));
    });
    informers.nodes.on(event, (node, old) => {
      // Only the zone label of the node reaches the slices.
      const zone = (n: typeof node | undefined) => n?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
      if (event !== "update" || zone(node) !== zone(old)) enqueueNamespace(undefined);
    });
    informers.slices.on(event, (slice) => {
      // Our own writes come back through the watch; the view already has them.
      if (written.observe(slice, event === "delete")) return;
      const name = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
      if (!name) return;
      // Paced like probe changes: an echo that overtook its write's response must not bypass the pacing.
      const key = objectKey({ namespace: slice.metadata?.namespace, name });
      queue.addAfter(key, pacer.delayMs(key, Date.now()));
    });
  }

  let heartbeat: Promise<void> = Promise.resolve();
  let worker: Promise<void> = Promise.resolve();
  const stop = async () => {
    if (signal.aborted) return;
    log.info("agent stopping; slices are left as they are");
    stopper.abort();
    scheduler?.stop();
    queue.clearDelayed();
    await Promise.allSettled([worker, heartbeat]);
    await events.flush().catch(() => {});
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
  };

  try {
    await Promise.all([informersSynced(informers), credentials.settled()]);
  } catch (err) {
    await stop();
    throw err;
  }

  // The SWHs gating on each target: a change of its published state re-reconciles exactly those.
  let users: ReadonlyMap<string, readonly TargetUser[]> = new Map();
  const results = new ProbeResults((id) => {
    for (const user of users.get(id) ?? []) {
      const key = objectKey(user);
      queue.addAfter(key, Math.max(coalesceMs, pacer.delayMs(key, Date.now())));
    }
  });
  const probing = new ProbeScheduler<ProbeTarget>({
    maxConcurrent: opts.maxConcurrentProbes ?? 100,
    signal,
    run: (target, probeSignal) =>
      runProbe(target.probe, probeSignal, {
        probe: probeBySpec,
        credentials: (namespace, name) => credentials.lookup(namespace, name),
      }),
    // A throwing callback is a bug in this file: keep probing, and make it visible.
    onError: (err) => log.error("probe result handling failed", { err }),
    onTransition: (id, state) => log.debug("probe target changed", { target: id, passing: state.passing }),
    results,
    onResult: (id, result) => {
      const mode = probeModeLabel(probing.target(id)?.probe.probe.mode ?? "TCP");
      metrics.probeResults.inc({ mode, result: result.ok ? "success" : "failure" });
      metrics.probeDuration.observe({ mode }, result.durationMs / 1000);
    },
  });
  scheduler = probing;
  // The SWHs the targets were last planned for. An SWH planned for the first time while this node has slices of it
  // starts from those slices (SPEC §3.6: passing where an endpoint serves, reasons from the annotation): at start,
  // and when its spec becomes readable later — an upgrade, while the Services still lacked the spec an older
  // controller never published (ADR 0032). Its endpoints must not flap. A new SWH has no slices: nothing to seed.
  let plannedSwhs = new Set<string>();
  const syncPlan = (plan: TargetPlan): number => {
    const swhs = swhInputs();
    const fresh = swhs.filter(
      (s) => !plannedSwhs.has(objectKey(s)) && ownSlices(s.namespace, s.name).length > 0,
    );
    plannedSwhs = new Set(swhs.map(objectKey));
    const { seeds, passing } = seedFromSlices({
      nodeName,
      swhs: fresh,
      pods: pods(),
      targets: plan,
      slices: fresh.flatMap((s) => ownSlices(s.namespace, s.name)),
      onError: (swh, error) => problems.unprocessableSwh(swh, swh.spec, error),
    });
    users = plan.users;
    syncTargets(probing, plan.targets, Date.now(), seeds);
    metrics.probeTargets.set(probing.ids().length);
    return passing;
  };
  const passing = syncPlan(planTargets());
  const slices = informers.slices.list().length;
  log.info("agent started", { targets: probing.ids().length, seededPassing: passing, slices });

  const zoneOf = (node: string) => informers.nodes.get(node)?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
  const publications = new PublicationLog(log, metrics.endpointsWithheld);
  const work = async (key: string, { logger }: WorkContext): Promise<void> => {
    if (key === TARGETS) {
      syncPlan(planTargets());
      return;
    }
    await reconcileSwhSlices(key, {
      nodeName,
      ownSlices,
      pods,
      states: () => results.states,
      zoneOf,
      // Synced: workers start after `informersSynced`, and a failing watch keeps the last list (fail static).
      service: (namespace, name) => published.service(namespace, name),
      swhOf: (svc) => published.read(svc),
      unusableSpec: (ref, unusable) => problems.unusablePublishedSpec(ref, unusable),
      publication: (ref, publication) => publications.record(ref, publication),
      serviceLabels: (swh, svc) => {
        const proxy = svc?.metadata?.labels?.[LABEL_SERVICE_PROXY_NAME];
        return {
          headless: svc?.spec?.clusterIP === "None" || swh.spec.clusterIP === "None",
          ...(proxy ? { serviceProxyName: proxy } : {}),
        };
      },
      write: async (request) => {
        const result = await writeCountedSlices(request, { api: sliceApi, nodeName, metrics, logger });
        if (!result) return;
        written.recordWrites(request.swh.namespace, result.written, result.deleted);
        pacer.recordWrite(objectKey(request.swh), Date.now());
      },
      transitions: (swh, transitions) =>
        recordEndpointTransitions(swh, transitions, { events, metrics, logger }),
      issues: (swh, issues) => problems.probeIssues(swh, issues),
      unprocessable: (swh, error) => problems.unprocessableSwh(swh, swh.spec, error),
      endpoints: (ref, counts) => recordEndpointCounts(metrics, ref, counts),
    });
  };

  queue.add(TARGETS);
  enqueueNamespace(undefined);
  worker = queue.run(work, { concurrency: opts.workers ?? 4, signal });
  if (opts.namespace) {
    heartbeat = runHeartbeat({
      kubeConfig,
      namespace: opts.namespace,
      // ADR 0013: the Lease is named after the node and holds its full name.
      name: agentLeaseName(nodeName),
      holderIdentity: nodeName,
      intervalMs: opts.heartbeatIntervalMs ?? 10_000,
      leaseDurationSeconds: opts.leaseDurationSeconds ?? 40,
      logger: log,
      signal,
    });
  }
  started = true;
  return { registry, ports, ready, stop };
}

/** True when two versions of a pod look the same to the aggregation (an unreadable one never does). */
function samePodInfo(a: V1Pod, b: V1Pod): boolean {
  try {
    return JSON.stringify(podInfoFromPod(a)) === JSON.stringify(podInfoFromPod(b));
  } catch {
    return false; // reported when the pod list is read
  }
}
