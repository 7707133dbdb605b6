import { ANNOTATION_DRAIN, READINESS_GATE_PREFIX } from "@swh/crd-types";
import { memoizeFrozen } from "./internal/memoize-frozen.js";
import { compareStrings } from "./select-pods.js";
import type { ContainerPort, PodInfo, ReadinessGate } from "./types.js";

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
    annotations?: Record<string, string>;
    deletionTimestamp?: TimeField;
  };
  spec?: {
    nodeName?: string;
    readinessGates?: readonly { conditionType: string }[];
    containers?: readonly {
      ports?: readonly { name?: string; containerPort: number; protocol?: string }[];
    }[];
  };
  status?: {
    podIP?: string;
    podIPs?: readonly { ip?: string }[];
    phase?: string;
    startTime?: TimeField;
    conditions?: readonly { type: string; status: string; reason?: string }[];
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
  const drainedFrom = readDrain(meta.annotations?.[ANNOTATION_DRAIN]);
  if (drainedFrom.length > 0) info.drainedFrom = drainedFrom;
  const gates = readReadinessGates(pod);
  if (gates.length > 0) info.readinessGates = gates;
  return info;
}

/** The pod's readiness gates that name an SWH, each with the pod's condition of that type (see `ReadinessGate`). */
function readReadinessGates(pod: PodObject): ReadinessGate[] {
  const gates: ReadinessGate[] = [];
  for (const { conditionType } of pod.spec?.readinessGates ?? []) {
    if (!conditionType.startsWith(READINESS_GATE_PREFIX)) continue;
    const swh = conditionType.slice(READINESS_GATE_PREFIX.length);
    if (swh === "" || gates.some((g) => g.swh === swh)) continue;
    const condition = pod.status?.conditions?.find((c) => c.type === conditionType);
    gates.push(
      condition === undefined
        ? { swh }
        : { swh, current: { status: condition.status, reason: condition.reason ?? "" } },
    );
  }
  return gates.sort((a, b) => compareStrings(a.swh, b.swh));
}

/** The SWH names of a drain annotation (`*` for all), trimmed, without blanks or repeats, sorted. */
function readDrain(value: string | undefined): string[] {
  if (value === undefined) return [];
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return [...new Set(names)].sort();
}

/** True when `pod` is drained from the SWH named `swhName` (its annotation names it, or `*`). */
export function isDrainedFrom(pod: PodInfo, swhName: string): boolean {
  return pod.drainedFrom?.some((name) => name === "*" || name === swhName) === true;
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

/**
 * True when two pods read the same to the aggregation (field by field, labels as a set of pairs, IPs and ports in
 * order); an absent pod equals only an absent pod. The agent skips the many status-only pod updates with it.
 */
export function samePodInfo(a: PodInfo | undefined, b: PodInfo | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.name === b.name &&
    a.namespace === b.namespace &&
    a.uid === b.uid &&
    a.nodeName === b.nodeName &&
    a.phase === b.phase &&
    a.ready === b.ready &&
    a.terminating === b.terminating &&
    a.eligibleSince === b.eligibleSince &&
    sameList(a.drainedFrom ?? [], b.drainedFrom ?? [], (x, y) => x === y) &&
    sameList(a.readinessGates ?? [], b.readinessGates ?? [], sameGate) &&
    sameList(a.ips, b.ips, (x, y) => x === y) &&
    sameList(a.containerPorts, b.containerPorts, sameContainerPort) &&
    sameLabels(a.labels, b.labels)
  );
}

function sameList<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  return a.length === b.length && a.every((x, i) => same(x, b[i] as T));
}

function sameGate(a: ReadinessGate, b: ReadinessGate): boolean {
  return (
    a.swh === b.swh && a.current?.status === b.current?.status && a.current?.reason === b.current?.reason
  );
}

function sameContainerPort(a: ContainerPort, b: ContainerPort): boolean {
  return a.name === b.name && a.containerPort === b.containerPort && a.protocol === b.protocol;
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
