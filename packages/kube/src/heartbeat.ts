/**
 * A heartbeat Lease: a process renews its own Lease (one holder, never contested) so others can tell it runs. The
 * agent's per-node heartbeat is one (its name and holder come from the caller; SPEC §5, ADR 0013). Built on the
 * same Lease read/create/replace as leader election.
 */
import { CoordinationV1Api, type KubeConfig } from "@kubernetes/client-node";
import { sleepUnlessAborted } from "./clock.js";
import { describeApiError } from "./internal/api-errors.js";
import { createLease, type LeaseRef, readLease, replaceLease } from "./internal/lease.js";
import type { Logger } from "./logger.js";

/** Options of `runHeartbeat`: which Lease, who holds it, how often it is renewed. */
export interface HeartbeatOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Lease name. */
  name: string;
  /** Written to `spec.holderIdentity` on every renewal. */
  holderIdentity: string;
  /** How often the Lease is renewed. */
  intervalMs: number;
  /** `spec.leaseDurationSeconds`: how long a renewal counts. */
  leaseDurationSeconds: number;
  /** Wait after a failed renewal, when shorter than `intervalMs`; default 2 s. */
  retryMs?: number;
  logger: Logger;
  signal: AbortSignal;
}

/** Renews the Lease every `intervalMs` until `signal` aborts; failures are logged (once per outage) and retried. */
export async function runHeartbeat(opts: HeartbeatOptions): Promise<void> {
  const api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
  const log = opts.logger.child({ lease: `${opts.namespace}/${opts.name}` });
  let failing = false;
  while (!opts.signal.aborted) {
    try {
      await renewHeartbeat(api, opts);
      if (failing) log.info("heartbeat renewed again");
      failing = false;
    } catch (err) {
      if (!failing) log.warn("heartbeat renewal failed; retrying", { err: describeApiError(err) });
      failing = true;
    }
    const retryMs = opts.retryMs ?? 2_000;
    await sleepUnlessAborted(failing ? Math.min(opts.intervalMs, retryMs) : opts.intervalMs, opts.signal);
  }
}

/**
 * Creates the Lease, or sets its holder, duration and renew time keeping its acquire time and transitions (replace
 * with the read resourceVersion: a conflict fails this renewal and the next one retries).
 */
export async function renewHeartbeat(
  api: CoordinationV1Api,
  opts: Pick<HeartbeatOptions, "namespace" | "name" | "holderIdentity" | "leaseDurationSeconds">,
): Promise<void> {
  const ref: LeaseRef = { namespace: opts.namespace, name: opts.name };
  const now = new Date();
  const current = await readLease(api, ref);
  const fields = {
    holderIdentity: opts.holderIdentity,
    leaseDurationSeconds: opts.leaseDurationSeconds,
    renewTime: now,
  };
  if (current === undefined) {
    await createLease(api, ref, { ...fields, acquireTime: now });
    return;
  }
  const { acquireTime, leaseTransitions } = current.spec ?? {};
  await replaceLease(api, ref, current, {
    ...fields,
    ...(acquireTime === undefined ? {} : { acquireTime }),
    ...(leaseTransitions === undefined ? {} : { leaseTransitions }),
  });
}
