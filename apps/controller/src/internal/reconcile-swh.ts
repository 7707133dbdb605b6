/**
 * One level-based reconcile of one SWH (key `namespace/name`): bring the child Service in sync, then compute the
 * status from the Service and the agents' slices and patch it only when it changed; Events for condition
 * changes. Reads come from informer caches (never mutated), writes go through `ControllerApi`.
 */
import type { V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import { mergePatch, planService, type ServicePlan } from "@swh/aggregation";
import {
  CONDITION_REASONS,
  type ConditionReason,
  describeUnprocessableSpec,
  EVENT_REASONS,
  type EventReason,
  isControlledBy,
  isControllerRefTo,
  SERVICE_PROBLEMS,
  type ServiceWithHealthchecks,
  splitObjectKey,
} from "@swh/crd-types";
import {
  type DroppedKey,
  describeApiError,
  httpStatusOf,
  type Logger,
  TerminalError,
  type WorkResult,
} from "@swh/kube";
import {
  type ControllerStatus,
  computeInvalidSpecStatus,
  computeStatus,
  type IndexedSlice,
  keepReconcileFailed,
  type ServiceSyncOutcome,
  sameStatus,
  statusEvents,
  withReconcileFailed,
} from "@swh/slice-writer";
import { type ControllerApi, termWriteSignal } from "./controller-api.js";
import type { ControllerMetrics } from "./controller-metrics.js";

/** Where Events go; `@swh/kube`'s EventRecorder fits. */
export interface EventRecorderLike {
  record(
    obj: { apiVersion: string; kind: string; name: string; namespace: string; uid: string },
    type: "Normal" | "Warning",
    reason: EventReason | ConditionReason,
    message: string,
  ): void;
}

/** What a reconcile reads and writes. */
export interface SwhReconcileDeps {
  getSwh(namespace: string, name: string): Readonly<ServiceWithHealthchecks> | undefined;
  getService(namespace: string, name: string): Readonly<V1Service> | undefined;
  slicesOf(swhKey: string): readonly IndexedSlice[];
  staleNodes(): ReadonlySet<string>;
  /** NotReady nodes whose slices are kept because their agent is alive (see `reconcileNode`). */
  notReadyNodes?(): ReadonlySet<string>;
  api: ControllerApi;
  events: EventRecorderLike;
  metrics: ControllerMetrics;
  /** The run's logger (the queue's: its lines carry the run's `reconcileID`). */
  logger: Logger;
  now(): Date;
  /**
   * Aborted the moment this replica stops leading (every write carries it) — and, for a reconcile run by the
   * queue, when the run exceeds its deadline.
   */
  signal: AbortSignal;
  /**
   * The status this controller last wrote per SWH key (see `WrittenStatus`): until the informer delivers the
   * object our patch produced, its cached status is older than the truth; comparing against what we wrote avoids
   * a second identical patch and duplicate Events.
   */
  writtenStatus: Map<string, WrittenStatus>;
}

/**
 * A status this controller wrote: the SWH uid, the resourceVersion the patch produced and when. It stands for the
 * stored status while the informer has not yet delivered that resourceVersion (we are the only status writer),
 * for at most `WRITTEN_STATUS_TTL_MS` so a re-list that skipped our version cannot pin it.
 */
export interface WrittenStatus {
  uid: string | undefined;
  resourceVersion: string | undefined;
  at: number;
  status: ControllerStatus;
}

/** How long a written status may stand in for the informer's copy. */
export const WRITTEN_STATUS_TTL_MS = 30_000;

/** How soon a key is looked at again after a 409 (the informer usually catches up within milliseconds). */
export const CONFLICT_REQUEUE_MS = 500;

/** Thrown after status was written when the Service write failed, so the queue retries with backoff. */
export class ServiceWriteError extends Error {
  override readonly name = "ServiceWriteError";
}

/**
 * Reconciles the SWH `key`. A conflict (409: our cache is behind) asks for a quick requeue; a failed Service
 * write is reported in status and then rejected so the queue retries with backoff. An SWH whose stored shape the
 * computation cannot handle (it throws) gets an `InvalidSpec` status naming the first bad field and a Warning
 * Event, its Service is left as it is, and the reconcile throws a `TerminalError`, so the queue does not retry it
 * until it changes: one bad object never stops or slows the others (ADR 0015, ADR 0022).
 */
export async function reconcileSwh(key: string, deps: SwhReconcileDeps): Promise<WorkResult> {
  const { namespace, name } = splitObjectKey(key);
  const swh = deps.getSwh(namespace, name);
  if (swh === undefined || swh.metadata.deletionTimestamp !== undefined) {
    // The garbage collector removes the Service and slices through their ownerReferences.
    deps.metrics.serviceEndpoints.remove({ namespace, service: name, state: "ready" });
    deps.metrics.serviceEndpoints.remove({ namespace, service: name, state: "not_ready" });
    deps.writtenStatus.delete(key);
    return;
  }
  const log = deps.logger.child({ swh: `${namespace}/${name}` });
  const ref = {
    apiVersion: swh.apiVersion,
    kind: swh.kind,
    name,
    namespace,
    uid: swh.metadata.uid ?? "",
  };

  const writeSignal = () => termWriteSignal(deps.signal);
  // Only the pure computations are guarded: an API error must keep its retry, a malformed object cannot use one.
  const invalid = async (error: unknown): Promise<WorkResult> => {
    const problem = describeUnprocessableSpec(swh.spec, error);
    const status = computeInvalidSpecStatus(swh, problem, deps.now());
    const result = await publishStatus(key, swh, ref, () => status, deps, writeSignal);
    // A 409 still asks for a look once the cache caught up; otherwise the queue logs this and does not retry.
    if (result !== undefined) return result;
    throw new TerminalError(`SWH cannot be processed; left as it is until it changes: ${problem}`);
  };
  const stored = deps.getService(namespace, name);
  let plan: ServicePlan;
  try {
    plan = planService(swh, stored);
  } catch (error) {
    return invalid(error);
  }
  let sync: ServiceSyncOutcome = { ready: true };
  let service: Readonly<V1Service> | undefined = stored;
  let writeError: unknown;
  switch (plan.action) {
    case "none":
      break;
    case "blocked":
      sync = { ready: false, reason: plan.reason, message: plan.message };
      // A foreign Service is not ours to mirror; an immutable cluster IP still leaves the Service ours.
      if (plan.reason !== SERVICE_PROBLEMS.clusterIPImmutable) service = undefined;
      break;
    case "create":
    case "update":
      try {
        service =
          plan.action === "create"
            ? await deps.api.createService(plan.service, writeSignal())
            : await deps.api.replaceService(plan.service, writeSignal());
        log.info(
          plan.action === "create" ? "created Service" : plan.adopt ? "adopted Service" : "updated Service",
        );
        if (plan.action === "create")
          deps.events.record(ref, "Normal", EVENT_REASONS.serviceCreated, `created Service ${name}`);
        if (plan.action === "update" && plan.adopt)
          deps.events.record(ref, "Normal", EVENT_REASONS.serviceAdopted, `adopted Service ${name}`);
      } catch (err) {
        // Leadership ended: a successor owns the status now; write nothing more.
        deps.signal.throwIfAborted();
        // 409/AlreadyExists: our cache is behind; look again once it caught up, without touching status.
        if (httpStatusOf(err) === 409) {
          log.debug("Service changed since our cache saw it; requeueing", { err: describeApiError(err) });
          return { requeueAfterMs: CONFLICT_REQUEUE_MS };
        }
        writeError = err;
        sync = {
          ready: false,
          reason: CONDITION_REASONS.serviceReady.serviceWriteFailed,
          message: describeApiError(err),
        };
      }
      break;
  }
  const ours = service !== undefined && isControlledBy(service, swh);

  const slices = deps
    .slicesOf(key)
    .filter(({ slice }) => belongsTo(slice, swh))
    .map(({ view }) => view);
  let status: ControllerStatus;
  try {
    status = computeStatus({
      swh,
      sync,
      service: ours ? service : undefined,
      slices,
      staleNodes: deps.staleNodes(),
      ...(deps.notReadyNodes === undefined ? {} : { notReadyNodes: deps.notReadyNodes() }),
      now: deps.now(),
    });
  } catch (error) {
    return invalid(error);
  }
  const endpoints = status.endpoints;
  deps.metrics.serviceEndpoints.set({ namespace, service: name, state: "ready" }, endpoints?.ready ?? 0);
  deps.metrics.serviceEndpoints.set(
    { namespace, service: name, state: "not_ready" },
    (endpoints?.total ?? 0) - (endpoints?.ready ?? 0),
  );

  // A reconcile that fails anyway keeps the failure the queue reported (else each report would be undone here).
  const build = (previous: ControllerStatus | undefined) =>
    writeError === undefined ? status : keepReconcileFailed(previous, status);
  const result = await publishStatus(key, swh, ref, build, deps, writeSignal);
  if (writeError !== undefined)
    throw new ServiceWriteError(`writing Service ${key} failed: ${describeApiError(writeError)}`, {
      cause: writeError,
    });
  return result;
}

/**
 * Shows in status why the queue dropped the SWH `key` (ADR 0022): a `Reconciled` condition, False with reason
 * `ReconcileFailed` and the last error (`describeApiError`: the API server's message, at most 600 characters; the
 * controller reads no Secrets), plus a Warning Event. A terminal error needs no report (it wrote its own status).
 */
export async function reportReconcileFailure(
  dropped: DroppedKey<string>,
  deps: SwhReconcileDeps,
): Promise<void> {
  if (dropped.kind !== "retry_limit") return;
  const { namespace, name } = splitObjectKey(dropped.key);
  const swh = deps.getSwh(namespace, name);
  if (swh === undefined || swh.metadata.deletionTimestamp !== undefined) return;
  const ref = { apiVersion: swh.apiVersion, kind: swh.kind, name, namespace, uid: swh.metadata.uid ?? "" };
  const message = `failed ${dropped.failures} times in a row, retried again when the SWH, its Service or its slices change: ${describeApiError(dropped.error)}`;
  const writeSignal = () => termWriteSignal(deps.signal);
  await publishStatus(
    dropped.key,
    swh,
    ref,
    (previous) => withReconcileFailed(swh, previous, message, deps.now()),
    deps,
    writeSignal,
  );
}

/**
 * Patches the status `build` returns from the stored one (or the one we wrote and the informer has not delivered
 * yet) unless it equals it, over the resourceVersion it was computed from (a 409 asks for a requeue, ADR 0019),
 * then records an Event per condition change. A status naming an invalid spec or a failed reconcile records a
 * Warning Event (`InvalidSpec`, `ReconcileFailed`) when written, so even a new SWH (whose first conditions are no
 * change) gets one.
 */
async function publishStatus(
  key: string,
  swh: Readonly<ServiceWithHealthchecks>,
  ref: Parameters<EventRecorderLike["record"]>[0],
  build: (previous: ControllerStatus | undefined) => ControllerStatus,
  deps: SwhReconcileDeps,
  writeSignal: () => AbortSignal,
): Promise<WorkResult> {
  const nowMs = deps.now().getTime();
  const written = deps.writtenStatus.get(key);
  const pending =
    written !== undefined &&
    written.uid === swh.metadata.uid &&
    written.resourceVersion !== swh.metadata.resourceVersion &&
    nowMs - written.at < WRITTEN_STATUS_TTL_MS;
  if (!pending) deps.writtenStatus.delete(key);
  const previous = pending ? written.status : (swh.status as ControllerStatus | undefined);
  const status = build(previous);
  if (sameStatus(previous, status)) return;
  // Written only over the version the status was computed from: a newer leader's write is never overwritten.
  const basis = pending ? written.resourceVersion : swh.metadata.resourceVersion;
  let resourceVersion: string | undefined;
  try {
    resourceVersion = await deps.api.patchStatus(
      { namespace: ref.namespace, name: ref.name, resourceVersion: basis },
      mergePatch(previous ?? {}, status),
      writeSignal(),
    );
  } catch (err) {
    if (httpStatusOf(err) !== 409) throw err;
    deps.logger.debug("SWH changed since the status was computed; requeueing", {
      swh: key,
      err: describeApiError(err),
    });
    deps.writtenStatus.delete(key);
    return { requeueAfterMs: CONFLICT_REQUEUE_MS };
  }
  deps.writtenStatus.set(key, { uid: swh.metadata.uid, resourceVersion, at: nowMs, status });
  for (const event of statusEvents(previous?.conditions, status))
    deps.events.record(ref, event.type, event.reason, event.message);
}

/** A slice counts for `swh` when it is controlled by it (or carries no controller, e.g. written by hand). */
function belongsTo(slice: Readonly<V1EndpointSlice>, swh: Readonly<ServiceWithHealthchecks>): boolean {
  const controller = slice.metadata?.ownerReferences?.find((r) => r.controller === true);
  return controller === undefined || isControllerRefTo(controller, swh);
}
