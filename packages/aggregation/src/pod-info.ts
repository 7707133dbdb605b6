import { memoizeFrozen } from "./internal/memoize-frozen.js";
import type { ContainerPort, PodInfo } from "./types.js";

/** A time field of a Kubernetes object: client-node deserialises it to a Date, raw JSON holds a string. */
type TimeField = Date | string | null | undefined;

/**
 * The fields of a Pod that `podInfoFromPod` reads: a structural shape, so a client-node `V1Pod` (or raw JSON)
 * fits and this package needs no Kubernetes client.
 */
export interface PodObject {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: TimeField;
  };
  spec?: {
    nodeName?: string;
    containers?: readonly {
      ports?: readonly { name?: string; containerPort: number; protocol?: string }[];
    }[];
  };
  status?: {
    podIP?: string;
    podIPs?: readonly { ip?: string }[];
    phase?: string;
    startTime?: TimeField;
    conditions?: readonly { type: string; status: string }[];
    containerStatuses?: readonly { state?: { running?: { startedAt?: TimeField } } }[];
  };
}

/**
 * Extracts the aggregation's view of a Pod from an informer object, without mutating it. Returns undefined for
 * objects missing the identity fields (never the case for objects served by the API server). Computed once per
 * frozen (informer) object; the result is shared and must not be mutated.
 */
export const podInfoFromPod: (pod: PodObject) => PodInfo | undefined = memoizeFrozen(readPodInfo);

function readPodInfo(pod: PodObject): PodInfo | undefined {
  const meta = pod.metadata;
  if (!meta?.name || !meta.namespace || !meta.uid) return undefined;
  const status = pod.status ?? {};
  const ips = (status.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => Boolean(ip));
  if (ips.length === 0 && status.podIP) ips.push(status.podIP);
  const phase = status.phase ?? "Unknown";
  const ready = (status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
  const containerPorts: ContainerPort[] = [];
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      const protocol = port.protocol === "UDP" || port.protocol === "SCTP" ? port.protocol : "TCP";
      containerPorts.push(
        port.name
          ? { name: port.name, containerPort: port.containerPort, protocol }
          : { containerPort: port.containerPort, protocol },
      );
    }
  }
  const info: PodInfo = {
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    nodeName: pod.spec?.nodeName ?? "",
    ips,
    phase,
    ready,
    terminating: meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null,
    labels: { ...(meta.labels ?? {}) },
    containerPorts,
  };
  const since = eligibleSince(pod, ips.length > 0, phase);
  if (since !== undefined) info.eligibleSince = since;
  return info;
}

/**
 * When the pod became Running with an IP: the earliest running container's start, else the pod's start time.
 * The initial delay of SPEC §3.3 counts from here.
 */
function eligibleSince(pod: PodObject, hasIp: boolean, phase: string): string | undefined {
  if (!hasIp || phase !== "Running") return undefined;
  let earliest: Date | undefined;
  for (const cs of pod.status?.containerStatuses ?? []) {
    const started = toDate(cs.state?.running?.startedAt);
    if (started && (!earliest || started < earliest)) earliest = started;
  }
  earliest ??= toDate(pod.status?.startTime);
  return earliest?.toISOString();
}

// The client deserialises date-time fields into Date objects, but informer caches fed from raw JSON may hold strings.
function toDate(value: TimeField): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
