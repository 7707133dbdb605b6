import type { V1EndpointSlice } from "@kubernetes/client-node";
import { aggregateEndpoints, type PodInfo, type ProbeState, type SwhInput } from "@swh/aggregation";
import { LABEL_SERVICE_NAME } from "@swh/crd-types";
import { failingAddresses, parsedReasons } from "./endpoint-reasons.js";

/** A probe target as far as seeding needs it: where it connects. */
export interface SeedableTarget {
  id: string;
  address: string;
  port: number;
}

/**
 * An SWH that uses a target. Slices of SWHs with `publishNotReadyAddresses` are read the same way: their `ready`
 * is forced, but `serving` and the reasons annotation are real.
 */
export interface TargetUser {
  namespace: string;
  name: string;
}

/** The state a target starts from after a restart. */
export interface SeededState {
  passing: true;
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
  for (const slice of slices) {
    const swhName = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
    const namespace = slice.metadata?.namespace;
    if (!swhName || !namespace) continue;
    for (const port of slice.ports ?? []) {
      if (port.port === undefined || port.port === null) continue;
      const failing = failingAddresses(slice);
      for (const endpoint of slice.endpoints ?? []) {
        for (const address of endpoint.addresses) {
          if (endpoint.conditions?.serving === true || !failing.has(address)) {
            passing.add(servingKey(namespace, swhName, address, port.port));
          }
        }
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
  for (const slice of slices) {
    const swh = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
    const port = slice.ports?.[0];
    for (const [address, entry] of parsedReasons(slice)) {
      const target = (entry as { target?: unknown } | undefined)?.target;
      if (typeof target !== "string") continue;
      const key = endpointKey(
        slice.metadata?.namespace,
        swh,
        port?.name ?? "",
        port?.port,
        slice.addressType,
        address,
      );
      published.set(key, target);
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

function endpointKey(
  namespace: string | undefined,
  swh: string | undefined,
  portName: string,
  port: number | undefined,
  family: string,
  address: string,
): string {
  return [namespace, swh, portName, port, family, address].join("\u0000");
}
