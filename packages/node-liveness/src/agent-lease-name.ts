/**
 * Node identity of the agents' heartbeat Leases (ADR 0013): one naming function for the agent that renews its
 * Lease and the controller that reads it. `swh-agent-<node>` does not fit an object name for node names over 243
 * characters, so a long name is cut and completed by a hash; the Lease names its node in full in
 * `spec.holderIdentity`, which is what the controller maps a Lease to its node by.
 */
import type { V1Lease } from "@kubernetes/client-node";
import { AGENT_LEASE_PREFIX, shortHash } from "@swh/crd-types/internal";

/** Longest object name Kubernetes accepts for a Lease (DNS subdomain). */
const MAX_LEASE_NAME_LENGTH = 253;

/**
 * Name of the heartbeat Lease of the agent of `nodeName`: `swh-agent-<node>` when that fits 253 characters
 * (unchanged from earlier releases), else `swh-agent-<readable prefix>-<hash of the full name>`: at most 253
 * characters and a valid DNS subdomain (node names are DNS subdomains; the cut prefix loses trailing dots and
 * dashes). Deterministic.
 */
export function agentLeaseName(nodeName: string): string {
  const plain = `${AGENT_LEASE_PREFIX}${nodeName}`;
  if (plain.length <= MAX_LEASE_NAME_LENGTH) return plain;
  const suffix = `-${shortHash(nodeName)}`;
  const prefix = plain.slice(0, MAX_LEASE_NAME_LENGTH - suffix.length).replace(/[^a-z0-9]+$/, "");
  return `${prefix}${suffix}`;
}

/**
 * The node whose agent heartbeat `lease` is: its `spec.holderIdentity`, provided the Lease carries the name
 * `agentLeaseName` gives that node; undefined for any other Lease (the controller's own, a foreign one, or one
 * whose holder does not match its name).
 */
export function agentLeaseNode(lease: Readonly<Pick<V1Lease, "metadata" | "spec">>): string | undefined {
  const node = lease.spec?.holderIdentity;
  if (node === undefined || node === null || node === "") return undefined;
  return lease.metadata?.name === agentLeaseName(node) ? node : undefined;
}
