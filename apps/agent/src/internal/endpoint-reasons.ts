/**
 * How the agent tells the controller why endpoints are not serving: one JSON annotation per slice (a slice
 * carries one port) mapping each failing address to `{ probe, reason, message, target }`. Key and shape are the
 * contract of `ANNOTATION_ENDPOINT_REASONS` in `@swh/crd-types`, which the controller reads; `target` is the
 * probe target id, which lets a restarted agent start from the published reason instead of rewriting every
 * slice with `NotProbedYet`.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup, ProbeState } from "@swh/aggregation";
import { ANNOTATION_ENDPOINT_REASONS } from "@swh/crd-types";

export { ANNOTATION_ENDPOINT_REASONS };

/** A slice plan as the slice writer returns it. */
export interface PlanLike {
  create: V1EndpointSlice[];
  update: V1EndpointSlice[];
  delete: V1EndpointSlice[];
}

interface ReasonEntry {
  probe: string;
  reason: string;
  message: string;
  target: string;
}

/**
 * Returns `plan` with the reasons annotation set on every slice it writes, plus an update for each existing
 * slice that the plan leaves alone but whose annotation is stale. A slice without failing endpoints carries no
 * annotation. Inputs are not mutated (slices from the informer cache are frozen).
 */
export function withEndpointReasons(
  plan: PlanLike,
  existing: readonly V1EndpointSlice[],
  groups: readonly EndpointGroup[],
): PlanLike {
  const reasons = reasonsByEndpoint(groups);
  const annotate = (slice: V1EndpointSlice): V1EndpointSlice => {
    const desired = formatReasons(slice, reasons);
    const annotations = { ...(slice.metadata?.annotations ?? {}) };
    if (desired === undefined) delete annotations[ANNOTATION_ENDPOINT_REASONS];
    else annotations[ANNOTATION_ENDPOINT_REASONS] = desired;
    return { ...slice, metadata: { ...slice.metadata, annotations } };
  };
  const touched = new Set<string>();
  for (const slice of [...plan.update, ...plan.delete]) touched.add(slice.metadata?.name ?? "");
  const stale: V1EndpointSlice[] = [];
  for (const slice of existing) {
    if (touched.has(slice.metadata?.name ?? "")) continue;
    const current = slice.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS];
    if (current !== formatReasons(slice, reasons)) stale.push(annotate(slice));
  }
  return {
    create: plan.create.map(annotate),
    update: [...plan.update.map(annotate), ...stale],
    delete: plan.delete,
  };
}

/** The failing-probe reasons a restarted agent starts from, by probe target id, read from its own slices. */
export function readReasonSeeds(slices: readonly V1EndpointSlice[]): Map<string, ProbeState> {
  const seeds = new Map<string, ProbeState>();
  for (const slice of slices) {
    for (const entry of parsedReasons(slice).values()) {
      const { reason, message, target } = (entry ?? {}) as Partial<Record<keyof ReasonEntry, unknown>>;
      if (typeof target !== "string" || typeof reason !== "string") continue;
      // "NotProbedYet" is what a missing state means already; seeding it would only hide a real first result.
      if (reason === "NotProbedYet") continue;
      const state: ProbeState = { passing: false, reason };
      if (typeof message === "string") state.message = message;
      seeds.set(target, state);
    }
  }
  return seeds;
}

/** The addresses of `slice` that its reasons annotation lists as failing a probe. */
export function failingAddresses(slice: V1EndpointSlice): Set<string> {
  return new Set(parsedReasons(slice).keys());
}

/**
 * The reasons annotation of `slice` by address (entries as written, unvalidated). A missing or malformed
 * annotation reads as "no reasons": reasons inform, conditions decide.
 */
export function parsedReasons(slice: V1EndpointSlice): Map<string, unknown> {
  const raw = slice.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS];
  if (raw === undefined) return new Map();
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return new Map();
    return new Map(Object.entries(parsed));
  } catch {
    return new Map();
  }
}

function reasonsByEndpoint(groups: readonly EndpointGroup[]): Map<string, ReasonEntry> {
  const out = new Map<string, ReasonEntry>();
  for (const group of groups) {
    for (const endpoint of group.endpoints) {
      const { failure } = endpoint;
      if (failure === undefined) continue;
      out.set(endpointKey(group.portName, group.port, group.addressFamily, endpoint.address), {
        probe: failure.failingProbe,
        reason: failure.reason,
        message: failure.message,
        target: failure.targetId,
      });
    }
  }
  return out;
}

function formatReasons(
  slice: V1EndpointSlice,
  reasons: ReadonlyMap<string, ReasonEntry>,
): string | undefined {
  const port = slice.ports?.[0];
  const entries: [string, ReasonEntry][] = [];
  for (const endpoint of slice.endpoints ?? []) {
    for (const address of endpoint.addresses) {
      const entry = reasons.get(endpointKey(port?.name ?? "", port?.port ?? 0, slice.addressType, address));
      if (entry !== undefined) entries.push([address, entry]);
    }
  }
  if (entries.length === 0) return undefined;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(entries));
}

function endpointKey(portName: string, port: number, family: string, address: string): string {
  return `${portName}\u0000${port}\u0000${family}\u0000${address}`;
}
