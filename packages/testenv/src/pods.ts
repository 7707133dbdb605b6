import { isIP } from "node:net";
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1ContainerStatus,
  type V1Pod,
  type V1PodCondition,
  type V1PodStatus,
} from "@kubernetes/client-node";
import { httpStatusOf, retryOnConflict } from "./internal/api-errors.js";
import { waitFor } from "./wait-for.js";

/** What {@link createPod} creates: a Pod bound to `node` with the status a kubelet would report. */
export interface PodSpecLite {
  name: string;
  namespace: string;
  node: string;
  /** Pod IPs, one per family, primary first: e.g. `["10.244.1.5"]` or `["10.244.1.5", "fd00:10:244::1:5"]`. */
  ips: string[];
  labels?: Record<string, string>;
  containerPorts?: { name?: string; containerPort: number; protocol?: "TCP" | "UDP" | "SCTP" }[];
  /** Ready and ContainersReady conditions; default true. */
  ready?: boolean;
  /** Default Running. */
  phase?: "Pending" | "Running" | "Succeeded" | "Failed";
  /**
   * Condition types of `spec.readinessGates`. Until each has a True condition the pod's `Ready` is False, as the
   * kubelet reports it (ContainersReady follows `ready`); {@link applyReadinessGates} re-evaluates them.
   */
  readinessGates?: string[];
}

const CONTAINER = "app";
/** Never pulled: no kubelet runs. `.invalid` makes sure nothing could ever resolve it. */
const IMAGE = "registry.invalid/swh-testenv:0";

/**
 * Creates a Pod on `pod.node` and sets its status through the status subresource as a kubelet would:
 * phase, podIP/podIPs, hostIP(s) from the Node's InternalIP addresses, startTime, a running container
 * and the PodScheduled/Initialized/ContainersReady/Ready conditions.
 */
export async function createPod(kc: KubeConfig, pod: PodSpecLite): Promise<void> {
  if (pod.ips.length === 0) throw new Error(`createPod ${pod.namespace}/${pod.name}: ips must not be empty`);
  for (const ip of pod.ips) {
    if (isIP(ip) === 0) throw new Error(`createPod ${pod.namespace}/${pod.name}: ips: "${ip}" is not an IP`);
  }
  const core = kc.makeApiClient(CoreV1Api);
  const node = await core.readNode({ name: pod.node });
  const hostIPs = hostAddresses(node.status?.addresses ?? []);
  const created = await core.createNamespacedPod({
    namespace: pod.namespace,
    body: {
      metadata: { name: pod.name, namespace: pod.namespace, ...(pod.labels ? { labels: pod.labels } : {}) },
      spec: {
        nodeName: pod.node,
        enableServiceLinks: false,
        ...(pod.readinessGates
          ? { readinessGates: pod.readinessGates.map((conditionType) => ({ conditionType })) }
          : {}),
        containers: [
          {
            name: CONTAINER,
            image: IMAGE,
            ...(pod.containerPorts
              ? { ports: pod.containerPorts.map((p) => ({ ...p, protocol: p.protocol ?? "TCP" })) }
              : {}),
          },
        ],
      },
    },
  });
  const [primaryIp] = pod.ips;
  const now = new Date();
  const phase = pod.phase ?? "Running";
  const ready = pod.ready ?? true;
  const status: V1PodStatus = {
    ...created.status,
    phase,
    ...(primaryIp ? { podIP: primaryIp } : {}),
    podIPs: pod.ips.map((ip) => ({ ip })),
    ...(hostIPs[0] ? { hostIP: hostIPs[0], hostIPs: hostIPs.map((ip) => ({ ip })) } : {}),
    startTime: now,
    conditions: [
      condition("PodScheduled", true, now),
      condition("Initialized", true, now),
      condition("ContainersReady", ready, now),
      condition("Ready", ready && (pod.readinessGates ?? []).length === 0, now),
    ],
    containerStatuses: [containerStatus(phase, ready, now)],
  };
  await core.replaceNamespacedPodStatus({
    name: pod.name,
    namespace: pod.namespace,
    body: { ...created, status },
  });
}

/** Flips the Pod's Ready and ContainersReady conditions (and its container's `ready`), as a readiness probe would. */
export async function setPodReady(
  kc: KubeConfig,
  namespace: string,
  name: string,
  ready: boolean,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await retryOnConflict(async () => {
    const pod = await core.readNamespacedPod({ name, namespace });
    const now = new Date();
    const status = pod.status ?? {};
    const conditions = (status.conditions ?? []).filter(
      (c) => c.type !== "Ready" && c.type !== "ContainersReady",
    );
    for (const type of ["ContainersReady", "Ready"] as const) {
      const previous = status.conditions?.find((c) => c.type === type);
      const next = condition(type, ready, now);
      if (previous?.status === next.status && previous.lastTransitionTime) {
        next.lastTransitionTime = previous.lastTransitionTime;
      }
      conditions.push(next);
    }
    const containerStatuses = (status.containerStatuses ?? []).map((c) => ({ ...c, ready }));
    const body: V1Pod = { ...pod, status: { ...status, conditions, containerStatuses } };
    await core.replaceNamespacedPodStatus({ name, namespace, body });
  });
}

/**
 * Re-evaluates the Pod's `Ready` from its readiness gates, as the kubelet's status manager does on every status
 * sync (no kubelet runs here): Ready is True when ContainersReady is True and every `spec.readinessGates`
 * condition type has a True condition. Writes only when Ready changes; resolves with the Ready it leaves.
 */
export async function applyReadinessGates(kc: KubeConfig, namespace: string, name: string): Promise<boolean> {
  const core = kc.makeApiClient(CoreV1Api);
  return retryOnConflict(async () => {
    const pod = await core.readNamespacedPod({ name, namespace });
    const conditions = pod.status?.conditions ?? [];
    const isTrue = (type: string) => conditions.some((c) => c.type === type && c.status === "True");
    const ready =
      isTrue("ContainersReady") && (pod.spec?.readinessGates ?? []).every((g) => isTrue(g.conditionType));
    if (isTrue("Ready") === ready) return ready;
    const next = [...conditions.filter((c) => c.type !== "Ready"), condition("Ready", ready, new Date())];
    await core.replaceNamespacedPodStatus({
      name,
      namespace,
      body: { ...pod, status: { ...pod.status, conditions: next } },
    });
    return ready;
  });
}

/**
 * Deletes the Pod gracefully. With no kubelet to finish the shutdown, it stays in the API with a
 * `deletionTimestamp` (Terminating) until {@link forceDeletePod}. Resolves once the timestamp is set.
 */
export async function markPodTerminating(kc: KubeConfig, namespace: string, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 30 });
  await waitFor(`pod ${namespace}/${name} to have a deletionTimestamp`, async () => {
    const pod = await core.readNamespacedPod({ name, namespace });
    return pod.metadata?.deletionTimestamp !== undefined;
  });
}

/** Deletes the Pod with grace period 0 (what `kubectl delete --force` does) and waits until it is gone. */
export async function forceDeletePod(kc: KubeConfig, namespace: string, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
  } catch (error) {
    if (httpStatusOf(error) === 404) return;
    throw error;
  }
  await waitFor(`pod ${namespace}/${name} to be gone`, async () => {
    try {
      await core.readNamespacedPod({ name, namespace });
      return false;
    } catch (error) {
      if (httpStatusOf(error) === 404) return true;
      throw error;
    }
  });
}

function condition(type: string, value: boolean, now: Date): V1PodCondition {
  return { type, status: value ? "True" : "False", lastTransitionTime: now };
}

function containerStatus(
  phase: NonNullable<PodSpecLite["phase"]>,
  ready: boolean,
  now: Date,
): V1ContainerStatus {
  const state: V1ContainerStatus["state"] =
    phase === "Running"
      ? { running: { startedAt: now } }
      : phase === "Pending"
        ? { waiting: { reason: "ContainerCreating" } }
        : { terminated: { exitCode: phase === "Succeeded" ? 0 : 1, startedAt: now, finishedAt: now } };
  return {
    name: CONTAINER,
    image: IMAGE,
    imageID: "",
    ready,
    started: phase === "Running",
    restartCount: 0,
    state,
  };
}

/** The first InternalIP per family, IPv4 first, as a kubelet picks hostIPs. */
function hostAddresses(addresses: readonly { type: string; address: string }[]): string[] {
  const internal = addresses.filter((a) => a.type === "InternalIP").map((a) => a.address);
  const v4 = internal.find((a) => isIP(a) === 4);
  const v6 = internal.find((a) => isIP(a) === 6);
  return [v4, v6].filter((a): a is string => a !== undefined);
}

/**
 * Sets (a string) or removes (`null`) the annotations of a Pod with a merge patch, as `kubectl annotate` does:
 * e.g. the drain annotation of an operator taking the pod out of a balancer.
 */
export async function annotatePod(
  kc: KubeConfig,
  namespace: string,
  name: string,
  annotations: Record<string, string | null>,
): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .patchNamespacedPod(
      { name, namespace, body: { metadata: { annotations } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
}
