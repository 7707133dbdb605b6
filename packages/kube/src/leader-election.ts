/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's timing model: a candidate takes the Lease
 * when it is free or its holder has not renewed it for `leaseDurationSeconds` (measured on OUR clock from when we
 * last saw the Lease change, so clock skew between nodes does not matter); the leader renews every
 * `retryPeriodSeconds` and gives up leadership when it could not renew for `renewDeadlineSeconds` or sees another
 * holder. Losing leadership aborts the signal handed to `onStartedLeading` at once, so the leader's work stops
 * before a successor can start (renew deadline < lease duration). On shutdown the leader releases the Lease (empty
 * holder), so a successor takes over on its next retry instead of waiting for expiry.
 */
import { CoordinationV1Api, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import { sleepUnlessAborted, systemClock } from "./clock.js";
import { describeApiError } from "./internal/api-errors.js";
import { createLease, type LeaseFields, readLease, replaceLease } from "./internal/lease.js";
import type { Logger } from "./logger.js";
import type { KubeMetrics } from "./metrics.js";

/**
 * Options of `runLeaderElection`: which Lease, who we are, the client-go style timing (lease duration, renew
 * deadline, retry period) and the callbacks run when leadership starts and ends.
 */
export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Lease name. */
  name: string;
  /** This process's identity, unique among candidates (e.g. the pod name). */
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineSeconds?: number;
  retryPeriodSeconds?: number;
  /** Release the Lease when `signal` aborts while leading (default true). */
  releaseOnCancel?: boolean;
  /** Called when this process becomes leader; `signal` aborts the moment leadership is lost. */
  onStartedLeading(signal: AbortSignal): void;
  /** Called after leadership ended (lost or shut down), after the leader signal was aborted. */
  onStoppedLeading(): void;
  /** Called when a different holder is observed (may be called repeatedly with the same identity). */
  onNewLeader?(identity: string): void;
  signal: AbortSignal;
  logger: Logger;
  metrics?: KubeMetrics;
}

type Attempt = "ok" | "held" | "error";

/**
 * Campaigns for the Lease until `signal` aborts, calling `onStartedLeading`/`onStoppedLeading` around each term
 * (after losing leadership the process becomes a candidate again). Resolves once stopped and the Lease released.
 */
export async function runLeaderElection(opts: LeaderElectionOptions): Promise<void> {
  const leaseMs = (opts.leaseDurationSeconds ?? 15) * 1000;
  const renewDeadlineMs = (opts.renewDeadlineSeconds ?? 10) * 1000;
  const retryMs = (opts.retryPeriodSeconds ?? 2) * 1000;
  if (!(leaseMs > renewDeadlineMs))
    throw new Error("leaseDurationSeconds: must be greater than renewDeadlineSeconds");
  if (!(renewDeadlineMs > retryMs))
    throw new Error("renewDeadlineSeconds: must be greater than retryPeriodSeconds");
  if (!opts.identity) throw new Error("identity: must not be empty");
  const api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
  const log = opts.logger.child({ lease: `${opts.namespace}/${opts.name}`, identity: opts.identity });
  const { signal } = opts;
  // The last Lease version we saw and when (our clock): the basis of the expiry decision.
  let observedVersion: string | undefined;
  let observedAt = 0;
  let lastLeader: string | undefined;

  const ref = { namespace: opts.namespace, name: opts.name };

  const tryAcquireOrRenew = async (): Promise<Attempt> => {
    const now = new Date();
    let lease: V1Lease | undefined;
    try {
      lease = await readLease(api, ref);
    } catch (err) {
      log.warn("reading the lease failed", { err: describeApiError(err) });
      return "error";
    }
    if (lease === undefined) {
      try {
        observe(await createLease(api, ref, fields(now, now, 0)));
        return "ok";
      } catch (createErr) {
        log.warn("creating the lease failed", { err: describeApiError(createErr) });
        return "error";
      }
    }
    observe(lease);
    const holder = lease.spec?.holderIdentity ?? "";
    const durationMs = (lease.spec?.leaseDurationSeconds ?? leaseMs / 1000) * 1000;
    if (holder !== "" && holder !== lastLeader) {
      lastLeader = holder;
      if (holder !== opts.identity) opts.onNewLeader?.(holder);
    }
    if (holder !== "" && holder !== opts.identity && observedAt + durationMs > Date.now()) return "held";
    const transitions = lease.spec?.leaseTransitions ?? 0;
    const acquiredAt = holder === opts.identity ? lease.spec?.acquireTime : undefined;
    try {
      const renewed = fields(
        acquiredAt ?? now,
        now,
        holder === opts.identity ? transitions : transitions + 1,
      );
      observe(await replaceLease(api, ref, lease, renewed));
      lastLeader = opts.identity;
      return "ok";
    } catch (err) {
      // 409: someone else wrote the Lease since we read it; the next read tells who holds it.
      log.warn("updating the lease failed", { err: describeApiError(err) });
      return "error";
    }
  };

  const observe = (lease: V1Lease) => {
    const version = lease.metadata?.resourceVersion;
    if (version !== observedVersion) {
      observedVersion = version;
      observedAt = Date.now();
    }
  };

  const fields = (acquired: Date | string, renewed: Date, transitions: number): LeaseFields => ({
    holderIdentity: opts.identity,
    leaseDurationSeconds: leaseMs / 1000,
    acquireTime: acquired,
    renewTime: renewed,
    leaseTransitions: transitions,
  });

  const release = async () => {
    try {
      const lease = await readLease(api, ref);
      if (lease?.spec?.holderIdentity !== opts.identity) return;
      await replaceLease(api, ref, lease, {
        leaseDurationSeconds: 1,
        renewTime: new Date(),
        leaseTransitions: lease.spec.leaseTransitions ?? 0,
      });
      log.info("released the lease");
    } catch (err) {
      log.warn("releasing the lease failed; a successor waits for it to expire", {
        err: describeApiError(err),
      });
    }
  };

  opts.metrics?.leader.set(0);
  while (!signal.aborted) {
    const attempt = await tryAcquireOrRenew();
    if (attempt !== "ok") {
      await sleepUnlessAborted(retryMs * (1 + 0.2 * Math.random()), signal);
      continue;
    }
    // Leading.
    const term = new AbortController();
    let lastRenew = Date.now();
    opts.metrics?.leader.set(1);
    log.info("started leading");
    try {
      opts.onStartedLeading(term.signal);
    } catch (err) {
      log.error("onStartedLeading threw", { err });
    }
    let reason = "shutdown";
    while (!signal.aborted) {
      await sleepUnlessAborted(retryMs, signal);
      if (signal.aborted) break;
      const result = await withDeadline(tryAcquireOrRenew(), lastRenew + renewDeadlineMs - Date.now());
      if (result === "ok") {
        lastRenew = Date.now();
        continue;
      }
      if (result === "held") {
        reason = "another holder took the lease";
        break;
      }
      if (Date.now() - lastRenew >= renewDeadlineMs) {
        reason = "could not renew within the renew deadline";
        break;
      }
    }
    term.abort(new Error(`leadership lost: ${reason}`));
    opts.metrics?.leader.set(0);
    log.info("stopped leading", { reason });
    try {
      opts.onStoppedLeading();
    } catch (err) {
      log.error("onStoppedLeading threw", { err });
    }
    if (signal.aborted && (opts.releaseOnCancel ?? true)) await release();
  }
}

// Resolves with the attempt's result, or "error" when `ms` pass first (a hung request must not extend a term).
function withDeadline(attempt: Promise<Attempt>, ms: number): Promise<Attempt> {
  if (ms <= 0) return Promise.resolve("error");
  return new Promise((resolve) => {
    const timer = systemClock.setTimeout(() => resolve("error"), ms);
    attempt.then(
      (r) => {
        systemClock.clearTimeout(timer);
        resolve(r);
      },
      () => {
        systemClock.clearTimeout(timer);
        resolve("error");
      },
    );
  });
}
