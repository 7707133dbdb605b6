/**
 * Restart seeding (SPEC §3.6, ADR 0006): the probe states a restarted agent starts from, read from the slices it
 * already published through the slice contract's one reader (`readSlice` of `@swh/slice-writer`).
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import {
  aggregateEndpoints,
  type PodInfo,
  type ProbeState,
  type ProbeTarget,
  type SwhInput,
  type TargetUser,
} from "@swh/aggregation";
import { readSlice, type SliceView } from "./read-slice.js";

/** A probe target as far as seeding needs it: where it connects. */
export interface SeedableTarget {
  id: string;
  address: string;
  port: number;
}

/** The state a target starts from after a restart. */
export interface SeededState {
  passing: true;
}

/** Everything seeding reads: the node's SWHs, pods and probe targets, and the slices already published. */
export interface SeedInput {
  nodeName: string;
  swhs: readonly SwhInput[];
  pods: readonly PodInfo[];
  targets: { targets: readonly ProbeTarget[]; users: ReadonlyMap<string, readonly TargetUser[]> };
  slices: readonly V1EndpointSlice[];
  /** Receives an SWH whose aggregation throws (it gets no preceding-probe seeds); default: rethrow. */
  onError?: (swh: SwhInput, error: unknown) => void;
}

/**
 * The probe states a restarted agent starts from: the published failures (`readReasonSeeds`), the targets whose
 * endpoints are published passing (`seedProbeStates`) and the probes that precede a published failing probe
 * (`seedPrecedingProbes`). Only slices of `nodeName` (by the full name they carry) are read. `passing` counts the
 * targets seeded passing from the published endpoints, for the start-up log.
 */
export function seedFromSlices(input: SeedInput): { seeds: Map<string, ProbeState>; passing: number } {
  const slices = input.slices.filter((s) => readSlice(s)?.nodeName === input.nodeName);
  const seeds = readReasonSeeds(slices);
  const passing = seedProbeStates(
    input.targets.targets.map((target) => ({ target, users: input.targets.users.get(target.id) ?? [] })),
    slices,
  );
  for (const id of passing.keys()) seeds.set(id, { passing: true });
  seedPrecedingProbes(input.swhs, input.pods, input.nodeName, slices, seeds, input.onError);
  return { seeds, passing: passing.size };
}

/** The failing-probe reasons a restarted agent starts from, by probe target id, read from its own slices. */
export function readReasonSeeds(slices: readonly V1EndpointSlice[]): Map<string, ProbeState> {
  const seeds = new Map<string, ProbeState>();
  for (const view of views(slices)) {
    for (const { reason } of view.endpoints) {
      if (reason?.target === undefined) continue;
      // "NotProbedYet" is what a missing state means already; seeding it would only hide a real first result.
      if (reason.reason === "NotProbedYet") continue;
      const state: ProbeState = { passing: false, reason: reason.reason };
      if (reason.message !== undefined) state.message = reason.message;
      seeds.set(reason.target, state);
    }
  }
  return seeds;
}

/**
 * Returns the targets that start as passing after a restart, read from the slices this agent already owns
 * (SPEC §3.6): a target passes when an endpoint at its address and port, in a slice of an SWH that uses it, is
 * `serving` or is not listed as failing in the slice's reasons annotation (an endpoint of a pod that is not Ready
 * whose probes pass). Targets not returned start failing, as new ones do; that never withdraws a published
 * endpoint, because such an endpoint was already not serving (every probe of its group must pass to serve).
 */
export function seedProbeStates(
  targets: readonly { target: SeedableTarget; users: readonly TargetUser[] }[],
  slices: readonly V1EndpointSlice[],
): Map<string, SeededState> {
  const passing = new Set<string>();
  for (const view of views(slices)) {
    for (const endpoint of view.endpoints) {
      if (endpoint.conditions.serving || endpoint.reason === undefined) {
        passing.add(servingKey(view.namespace, view.swhName, endpoint.address, view.port));
      }
    }
  }
  const seeds = new Map<string, SeededState>();
  for (const { target, users } of targets) {
    if (
      users.some((user) => passing.has(servingKey(user.namespace, user.name, target.address, target.port)))
    ) {
      seeds.set(target.id, { passing: true });
    }
  }
  return seeds;
}

function servingKey(namespace: string, swh: string, address: string, port: number): string {
  return `${namespace}\u0000${swh}\u0000${address}\u0000${port}`;
}

/**
 * Completes restart seeds with the probes that precede the published failing probe. The reasons annotation names
 * only the first failing probe of an endpoint's group (spec order), which implies every probe before it passed;
 * without seeding those, the first aggregation after a restart would report one of them as `NotProbedYet` and
 * rewrite the slice. Uses the aggregation itself to find them: while an endpoint's computed first failure is a
 * probe without a state and the slice names a different target, that probe is seeded passing. Mutates and
 * returns `seeds` (a fresh map owned by the caller). An SWH whose aggregation throws (a stored object whose shape
 * no longer fits) gets no seeds and is passed to `onError` (default: rethrow); the others are seeded as usual.
 */
export function seedPrecedingProbes(
  swhs: readonly SwhInput[],
  pods: readonly PodInfo[],
  nodeName: string,
  slices: readonly V1EndpointSlice[],
  seeds: Map<string, ProbeState>,
  onError: (swh: SwhInput, error: unknown) => void = (_swh, error) => {
    throw error;
  },
): Map<string, ProbeState> {
  const published = new Map<string, string>();
  for (const view of views(slices)) {
    for (const { address, reason } of view.endpoints) {
      if (reason?.target === undefined) continue;
      const key = endpointKey(
        view.namespace,
        view.swhName,
        view.portName,
        view.port,
        view.addressFamily,
        address,
      );
      published.set(key, reason.target);
    }
  }
  for (const swh of swhs) {
    try {
      seedSwh(swh);
    } catch (error) {
      onError(swh, error);
    }
  }
  return seeds;

  function seedSwh(swh: SwhInput): void {
    // Each pass settles one more probe per group; a group has at most as many probes as the SWH.
    for (let pass = 0; pass <= swh.spec.healthcheck.probes.length; pass++) {
      let changed = false;
      const { groups } = aggregateEndpoints(swh, pods, seeds, { zoneOf: () => undefined, nodeName });
      for (const group of groups) {
        for (const endpoint of group.endpoints) {
          const failure = endpoint.failure;
          if (failure === undefined || seeds.has(failure.targetId)) continue;
          const key = endpointKey(
            swh.namespace,
            swh.name,
            group.portName,
            group.port,
            group.addressFamily,
            endpoint.address,
          );
          const target = published.get(key);
          if (target !== undefined && target !== failure.targetId) {
            seeds.set(failure.targetId, { passing: true });
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
  }
}

function views(slices: readonly V1EndpointSlice[]): SliceView[] {
  return slices.flatMap((slice) => readSlice(slice) ?? []);
}

function endpointKey(
  namespace: string,
  swh: string,
  portName: string,
  port: number,
  family: string,
  address: string,
): string {
  return [namespace, swh, portName, port, family, address].join("\u0000");
}
