import type { V1EndpointSlice } from "@kubernetes/client-node";
import { LABEL_SERVICE_NAME } from "@swh/crd-types";

/** A probe target as far as seeding needs it: where it connects. */
export interface SeedableTarget {
  id: string;
  address: string;
  port: number;
}

/** An SWH that uses a target; slices of SWHs publishing not-ready addresses say nothing about probes. */
export interface TargetUser {
  namespace: string;
  name: string;
  publishNotReadyAddresses: boolean;
}

/** The state a target starts from after a restart. */
export interface SeededState {
  passing: true;
}

/**
 * Returns the targets that start as passing after a restart, read from the slices this agent already owns
 * (SPEC §3.6): a target passes when an endpoint at its address and port is `serving` in a slice of an SWH that
 * uses it. Targets not returned start failing, as new ones do; that never withdraws a published endpoint,
 * because such an endpoint was already not serving (every probe of its group must pass for it to serve).
 */
export function seedProbeStates(
  targets: readonly { target: SeedableTarget; users: readonly TargetUser[] }[],
  slices: readonly V1EndpointSlice[],
): Map<string, SeededState> {
  const serving = new Set<string>();
  for (const slice of slices) {
    const swhName = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
    const namespace = slice.metadata?.namespace;
    if (!swhName || !namespace) continue;
    for (const port of slice.ports ?? []) {
      if (port.port === undefined || port.port === null) continue;
      for (const endpoint of slice.endpoints ?? []) {
        if (endpoint.conditions?.serving !== true) continue;
        for (const address of endpoint.addresses) {
          serving.add(servingKey(namespace, swhName, address, port.port));
        }
      }
    }
  }
  const seeds = new Map<string, SeededState>();
  for (const { target, users } of targets) {
    const passing = users.some(
      (user) =>
        !user.publishNotReadyAddresses &&
        serving.has(servingKey(user.namespace, user.name, target.address, target.port)),
    );
    if (passing) seeds.set(target.id, { passing: true });
  }
  return seeds;
}

function servingKey(namespace: string, swh: string, address: string, port: number): string {
  return `${namespace}\u0000${swh}\u0000${address}\u0000${port}`;
}
