/**
 * One level-based reconcile of one SWH (key `namespace/name`), in order: read (`readSwhFacts`: plain data from
 * the informer caches and the term; the status this term wrote and the informer has not delivered yet laid over
 * the cached SWH) → decide (`publishedVerdicts` over the SWH's slices: zone hints and fail-open ports, ADR 0035
 * and ADR 0039; `planService`) → write the child Service → decide (`computeStatus`) → write the status, only when
 * it changed (`sameStatus`), over the resourceVersion it was computed from → report (Events for what happened and
 * for condition changes, the endpoint gauge). Cached objects are never mutated.
 */
import type { KubernetesObject, V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import { mergePatch, planService, publishedVerdicts, type ServicePlan } from "@swh/aggregation";
import {
  CONDITION_REASONS,
  EVENT_REASONS,
  objectKey,
  SERVICE_PROBLEMS,
  type ServiceWithHealthchecks,
  splitObjectKey,
} from "@swh/crd-types";
import {
  describeUnprocessableSpec,
  isControlledBy,
  isControllerRefTo,
  type PublishedVerdicts,
  swhReference,
} from "@swh/crd-types/internal";
import {
  type DroppedKey,
  describeApiError,
  httpStatusOf,
  TerminalError,
  type WorkResult,
  type WrittenObjects,
} from "@swh/kube";
import { recordServiceGauges } from "@swh/metrics";
import type { IndexedSlice } from "@swh/slice-writer";
import {
  type ControllerStatus,
  computeInvalidSpecStatus,
  computeStatus,
  keepReconcileFailed,
  type ServiceSyncOutcome,
  sameStatus,
  statusEvents,
  withReconcileFailed,
} from "@swh/status";
import { type ReconcileIo, termWriteSignal } from "./controller-api.js";
import type { ControllerCaches } from "./informers.js";
import type { LeaderTerm } from "./leader-term.js";

/** What one SWH reconcile reads, as plain data. */
export interface SwhFacts {
  key: string;
  /** The SWH as the informer has it; undefined when it is gone. */
  swh: Readonly<ServiceWithHealthchecks> | undefined;
  /** The Service of the same name, from the cache. */
  service: Readonly<V1Service> | undefined;
  /** The slices that name this SWH (the index's). */
  slices: readonly IndexedSlice[];
  /** Nodes whose agent heartbeat is stale, and NotReady nodes whose agent is alive (see `reconcileNode`). */
  staleNodes: ReadonlySet<string>;
  notReadyNodes: ReadonlySet<string>;
  now: Date;
}

/** A reconcile's I/O, plus the status writes of this term (see `LeaderTerm.writtenStatus`). */
export interface SwhIo extends ReconcileIo {
  written: WrittenObjects<KubernetesObject>;
}

/** How soon a key is looked at again after a 409 (the informer usually catches up within milliseconds). */
const CONFLICT_REQUEUE_MS = 500;

/** Thrown after status was written when the Service write failed, so the queue retries with backoff. */
class ServiceWriteError extends Error {
  override readonly name = "ServiceWriteError";
}

/** Reads what a reconcile of the SWH `key` needs from the caches and `term`. */
export function readSwhFacts(key: string, caches: ControllerCaches, term: LeaderTerm): SwhFacts {
  const { namespace, name } = splitObjectKey(key);
  return {
    key,
    swh: caches.swhs.get(name, namespace) as Readonly<ServiceWithHealthchecks> | undefined,
    service: caches.services.get(name, namespace),
    slices: caches.index.forSwh(key),
    staleNodes: term.staleNodes,
    notReadyNodes: term.notReadyNodes,
    now: new Date(),
  };
}

/**
 * Reconciles one SWH. A conflict (409: our cache is behind) asks for a quick requeue; a failed Service write is
 * reported in status and then rejected so the queue retries with backoff. An SWH whose stored shape the
 * computation cannot handle (it throws) gets an `InvalidSpec` status naming the first bad field and a Warning
 * Event, its Service is left as it is, and the reconcile throws a `TerminalError`, so the queue does not retry it
 * until it changes: one bad object never stops or slows the others (ADR 0015, ADR 0022).
 */
export async function reconcileSwh(facts: SwhFacts, io: SwhIo): Promise<WorkResult> {
  const { key, now } = facts;
  const swh = present(facts, io.written);
  if (swh === undefined) {
    // The garbage collector removes the Service and slices through their ownerReferences.
    recordServiceGauges(io.metrics, splitObjectKey(key), undefined);
    io.written.forget(key);
    return;
  }
  // Only the pure computations are guarded: an API error must keep its retry, a malformed object cannot use one.
  const invalid = async (error: unknown): Promise<WorkResult> => {
    const problem = describeUnprocessableSpec(swh.spec, error);
    const result = await publishStatus(swh, () => computeInvalidSpecStatus(swh, problem, now), io);
    // A 409 still asks for a look once the cache caught up; otherwise the queue logs this and does not retry.
    if (result !== undefined) return result;
    throw new TerminalError(`SWH cannot be processed; left as it is until it changes: ${problem}`);
  };
  const slices = facts.slices.filter(({ slice }) => belongsTo(slice, swh)).map(({ view }) => view);
  let plan: ServicePlan;
  let verdicts: PublishedVerdicts;
  try {
    verdicts = publishedVerdicts(swh.spec, slices);
    plan = planService(swh, facts.service, verdicts);
  } catch (error) {
    return invalid(error);
  }
  const sync = await writeService(plan, swh, facts.service, io);
  if (sync === "conflict") return { requeueAfterMs: CONFLICT_REQUEUE_MS };
  const { service, writeError } = sync;
  let status: ControllerStatus;
  try {
    status = computeStatus({
      swh,
      sync: sync.outcome,
      service: service !== undefined && isControlledBy(service, swh) ? service : undefined,
      slices,
      staleNodes: facts.staleNodes,
      notReadyNodes: facts.notReadyNodes,
      now,
    });
  } catch (error) {
    return invalid(error);
  }
  recordServiceGauges(io.metrics, splitObjectKey(key), {
    ready: status.endpoints?.ready ?? 0,
    total: status.endpoints?.total ?? 0,
    failOpenPorts: verdicts.failOpen?.length ?? 0,
  });
  // A reconcile that fails anyway keeps the failure the queue reported (else each report would be undone here).
  const result = await publishStatus(
    swh,
    (previous) => (writeError === undefined ? status : keepReconcileFailed(previous, status)),
    io,
  );
  if (writeError !== undefined)
    throw new ServiceWriteError(`writing Service ${key} failed: ${describeApiError(writeError)}`, {
      cause: writeError,
    });
  return result;
}

/**
 * Shows in status why the queue dropped the SWH (ADR 0022): a `Reconciled` condition, False with reason
 * `ReconcileFailed` and the last error (`describeApiError`: the API server's message, at most 600 characters; the
 * controller reads no Secrets), plus a Warning Event. A terminal error needs no report (it wrote its own status).
 */
export async function reportReconcileFailure(
  dropped: DroppedKey<string>,
  facts: SwhFacts,
  io: SwhIo,
): Promise<void> {
  if (dropped.kind !== "retry_limit") return;
  const swh = present(facts, io.written);
  if (swh === undefined) return;
  const message = `failed ${dropped.failures} times in a row, retried again when the SWH, its Service or its slices change: ${describeApiError(dropped.error)}`;
  await publishStatus(swh, (previous) => withReconcileFailed(swh, previous, message, facts.now), io);
}

/** The SWH to act on: the cached one, or the one our last status patch produced while the cache is older. */
function present(facts: SwhFacts, written: SwhIo["written"]): Readonly<ServiceWithHealthchecks> | undefined {
  const swh = written.current(facts.key, facts.swh as Readonly<KubernetesObject> | undefined) as
    | Readonly<ServiceWithHealthchecks>
    | undefined;
  return swh?.metadata.deletionTimestamp === undefined ? swh : undefined;
}

/** How the Service write went: the Service to mirror into status and the outcome, or a 409 to requeue on. */
type ServiceSync =
  | "conflict"
  | { outcome: ServiceSyncOutcome; service: Readonly<V1Service> | undefined; writeError?: unknown };

/** Performs `plan` for the child Service of `swh` and records `ServiceCreated`/`ServiceAdopted`. */
async function writeService(
  plan: ServicePlan,
  swh: Readonly<ServiceWithHealthchecks>,
  stored: Readonly<V1Service> | undefined,
  io: SwhIo,
): Promise<ServiceSync> {
  if (plan.action === "none") return { outcome: { ready: true }, service: stored };
  if (plan.action === "blocked") {
    const outcome = { ready: false as const, reason: plan.reason, message: plan.message };
    // A foreign Service is not ours to mirror; an immutable cluster IP still leaves the Service ours.
    return { outcome, service: plan.reason === SERVICE_PROBLEMS.clusterIPImmutable ? stored : undefined };
  }
  const log = io.logger.child({ swh: objectKey(swh.metadata) });
  const name = swh.metadata.name ?? "";
  try {
    const create = plan.action === "create";
    const service = create
      ? await io.api.createService(plan.service, termWriteSignal(io.signal))
      : await io.api.replaceService(plan.service, termWriteSignal(io.signal));
    log.info(create ? "created Service" : plan.adopt ? "adopted Service" : "updated Service");
    const subject = swhReference(swh.metadata);
    if (create) io.events.record(subject, "Normal", EVENT_REASONS.serviceCreated, `created Service ${name}`);
    else if (plan.adopt)
      io.events.record(subject, "Normal", EVENT_REASONS.serviceAdopted, `adopted Service ${name}`);
    return { outcome: { ready: true }, service };
  } catch (err) {
    // Leadership ended: a successor owns the status now; write nothing more.
    io.signal.throwIfAborted();
    // 409/AlreadyExists: our cache is behind; look again once it caught up, without touching status.
    if (httpStatusOf(err) === 409) {
      log.debug("Service changed since our cache saw it; requeueing", { err: describeApiError(err) });
      return "conflict";
    }
    const reason = CONDITION_REASONS.serviceReady.serviceWriteFailed;
    return {
      outcome: { ready: false, reason, message: describeApiError(err) },
      service: stored,
      writeError: err,
    };
  }
}

/**
 * Patches the status `build` returns from the one `swh` carries (stored, or ours not delivered yet) unless it
 * equals it, over the resourceVersion it was computed from (a 409 asks for a requeue, ADR 0019), then records an
 * Event per condition change. A status naming an invalid spec or a failed reconcile records a Warning Event
 * (`InvalidSpec`, `ReconcileFailed`) when written, so even a new SWH (whose first conditions are no change) gets
 * one.
 */
async function publishStatus(
  swh: Readonly<ServiceWithHealthchecks>,
  build: (previous: ControllerStatus | undefined) => ControllerStatus,
  io: SwhIo,
): Promise<WorkResult> {
  const key = objectKey(swh.metadata);
  const previous = swh.status as ControllerStatus | undefined;
  const status = build(previous);
  if (sameStatus(previous, status)) return;
  const { namespace = "", name = "", resourceVersion: basis } = swh.metadata;
  let resourceVersion: string | undefined;
  try {
    // Written only over the version the status was computed from: a newer leader's write is never overwritten.
    resourceVersion = await io.api.patchStatus(
      { namespace, name, resourceVersion: basis },
      mergePatch(previous ?? {}, status),
      termWriteSignal(io.signal),
    );
  } catch (err) {
    if (httpStatusOf(err) !== 409) throw err;
    io.logger.debug("SWH changed since the status was computed; requeueing", {
      swh: key,
      err: describeApiError(err),
    });
    io.written.forget(key);
    return { requeueAfterMs: CONFLICT_REQUEUE_MS };
  }
  const metadata = { ...swh.metadata, ...(resourceVersion === undefined ? {} : { resourceVersion }) };
  // As the informer holds SWHs: plain JSON (string timestamps) under client-node's object type.
  io.written.recordWrite({ ...swh, metadata, status } as unknown as KubernetesObject);
  for (const event of statusEvents(previous?.conditions, status))
    io.events.record(swhReference(swh.metadata), event.type, event.reason, event.message);
}

/** A slice counts for `swh` when it is controlled by it (or carries no controller, e.g. written by hand). */
function belongsTo(slice: Readonly<V1EndpointSlice>, swh: Readonly<ServiceWithHealthchecks>): boolean {
  const controller = slice.metadata?.ownerReferences?.find((r) => r.controller === true);
  return controller === undefined || isControllerRefTo(controller, swh);
}
