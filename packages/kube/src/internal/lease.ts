/**
 * The coordination.k8s.io/v1 Lease calls shared by leader election and the heartbeat: read (absent is not an
 * error), create, and replace with the read object's resourceVersion (a concurrent writer gets a 409, never a
 * lost update), with times written as MicroTime.
 */
import type { CoordinationV1Api, V1Lease, V1LeaseSpec } from "@kubernetes/client-node";
import { httpStatusOf, microTime } from "./api-errors.js";

/** Which Lease. */
export interface LeaseRef {
  namespace: string;
  name: string;
}

/** The Lease spec fields we write; times are Dates, written as MicroTime. */
export interface LeaseFields {
  holderIdentity?: string;
  leaseDurationSeconds: number;
  /** A Date, or the MicroTime string read from the Lease (kept as it was). */
  acquireTime?: Date | string;
  renewTime: Date;
  leaseTransitions?: number;
}

/** Returns the Lease, or undefined when it does not exist; other errors are thrown. */
export async function readLease(api: CoordinationV1Api, ref: LeaseRef): Promise<V1Lease | undefined> {
  try {
    return await api.readNamespacedLease(ref);
  } catch (err) {
    if (httpStatusOf(err) === 404) return undefined;
    throw err;
  }
}

/** Creates the Lease with `fields` (409 when someone created it first). */
export function createLease(api: CoordinationV1Api, ref: LeaseRef, fields: LeaseFields): Promise<V1Lease> {
  return api.createNamespacedLease({
    namespace: ref.namespace,
    body: { metadata: { name: ref.name, namespace: ref.namespace }, spec: leaseSpec(fields) },
  });
}

/**
 * Replaces `current` (as read) with `fields` as its whole spec: the read resourceVersion goes with it, so a write
 * since the read fails with 409 instead of being overwritten.
 */
export function replaceLease(
  api: CoordinationV1Api,
  ref: LeaseRef,
  current: V1Lease,
  fields: LeaseFields,
): Promise<V1Lease> {
  return api.replaceNamespacedLease({
    name: ref.name,
    namespace: ref.namespace,
    body: {
      metadata: { ...current.metadata, name: ref.name, namespace: ref.namespace },
      spec: leaseSpec(fields),
    },
  });
}

// client-node types MicroTime as Date but serialises it with millisecond precision, which the API rejects.
function leaseSpec(fields: LeaseFields): V1LeaseSpec {
  const spec: V1LeaseSpec = {
    leaseDurationSeconds: fields.leaseDurationSeconds,
    renewTime: microTime(fields.renewTime) as unknown as Date,
  };
  if (fields.holderIdentity !== undefined) spec.holderIdentity = fields.holderIdentity;
  if (fields.acquireTime !== undefined) {
    const acquired = fields.acquireTime;
    spec.acquireTime = (typeof acquired === "string" ? acquired : microTime(acquired)) as unknown as Date;
  }
  if (fields.leaseTransitions !== undefined) spec.leaseTransitions = fields.leaseTransitions;
  return spec;
}
