/**
 * One level-based reconcile of one SWH (key `namespace/name`): bring the child Service in sync, then compute the
 * status from the Service and the agents' slices and patch it only when it changed; Events for condition
 * changes. Reads come from informer caches (never mutated), writes go through `ControllerApi`.
 */
import type { V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import { CONDITION_TYPES, type ServiceWithHealthchecks } from "@swh/crd-types";
import type { Logger, WorkResult } from "@swh/kube";
import {
  type ControllerStatus,
  computeStatus,
  type ServiceSyncOutcome,
  sameStatus,
} from "./compute-status.js";
import { conditionChanges } from "./conditions.js";
import { type ControllerApi, describeApiError, httpStatusOf } from "./controller-api.js";
import type { ControllerMetrics } from "./controller-metrics.js";
import { isControllerRefTo, planService, SERVICE_PROBLEMS } from "./plan-service.js";
import type { IndexedSlice } from "./slice-index.js";
import { mergePatch } from "./status-patch.js";

/** Where Events go; `@swh/kube`'s EventRecorder fits. */
export interface EventRecorderLike {
  record(
    obj: { apiVersion: string; kind: string; name: string; namespace: string; uid: string },
    type: "Normal" | "Warning",
    reason: string,
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
  logger: Logger;
  now(): Date;
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
 * write is reported in status and then rejected so the queue retries with backoff.
 */
export async function reconcileSwh(key: string, deps: SwhReconcileDeps): Promise<WorkResult> {
  const [namespace = "", name = ""] = key.split("/", 2);
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

  const stored = deps.getService(namespace, name);
  const plan = planService(swh, stored);
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
            ? await deps.api.createService(plan.service)
            : await deps.api.replaceService(plan.service);
        log.info(
          plan.action === "create" ? "created Service" : plan.adopt ? "adopted Service" : "updated Service",
        );
        if (plan.action === "create")
          deps.events.record(ref, "Normal", "ServiceCreated", `created Service ${name}`);
        if (plan.action === "update" && plan.adopt)
          deps.events.record(ref, "Normal", "ServiceAdopted", `adopted Service ${name}`);
      } catch (err) {
        // 409/AlreadyExists: our cache is behind; look again once it caught up, without touching status.
        if (httpStatusOf(err) === 409) {
          log.debug("Service changed since our cache saw it; requeueing", { err: describeApiError(err) });
          return { requeueAfterMs: CONFLICT_REQUEUE_MS };
        }
        writeError = err;
        sync = { ready: false, reason: "ServiceWriteFailed", message: describeApiError(err) };
      }
      break;
  }
  const ours =
    service !== undefined && (service.metadata?.ownerReferences ?? []).some((r) => isControllerRefTo(r, swh));

  const slices = deps
    .slicesOf(key)
    .filter(({ slice }) => belongsTo(slice, swh))
    .map(({ view }) => view);
  const status = computeStatus({
    swh,
    sync,
    service: ours ? service : undefined,
    slices,
    staleNodes: deps.staleNodes(),
    ...(deps.notReadyNodes === undefined ? {} : { notReadyNodes: deps.notReadyNodes() }),
    now: deps.now(),
  });
  const endpoints = status.endpoints;
  deps.metrics.serviceEndpoints.set({ namespace, service: name, state: "ready" }, endpoints?.ready ?? 0);
  deps.metrics.serviceEndpoints.set(
    { namespace, service: name, state: "not_ready" },
    (endpoints?.total ?? 0) - (endpoints?.ready ?? 0),
  );

  const nowMs = deps.now().getTime();
  const written = deps.writtenStatus.get(key);
  const pending =
    written !== undefined &&
    written.uid === swh.metadata.uid &&
    written.resourceVersion !== swh.metadata.resourceVersion &&
    nowMs - written.at < WRITTEN_STATUS_TTL_MS;
  if (!pending) deps.writtenStatus.delete(key);
  const previous = pending ? written.status : (swh.status as ControllerStatus | undefined);
  if (!sameStatus(previous, status)) {
    const resourceVersion = await deps.api.patchStatus(namespace, name, mergePatch(previous ?? {}, status));
    deps.writtenStatus.set(key, { uid: swh.metadata.uid, resourceVersion, at: nowMs, status });
    for (const change of conditionChanges(previous?.conditions, status.conditions ?? [])) {
      if (change.type === CONDITION_TYPES.childServiceReady) continue; // alias of ServiceReady: one Event is enough
      const type = change.to === "True" ? "Normal" : "Warning";
      deps.events.record(ref, type, change.reason, `${change.type} is ${change.to}: ${change.message}`);
    }
  }
  if (writeError !== undefined)
    throw new ServiceWriteError(`writing Service ${key} failed: ${describeApiError(writeError)}`, {
      cause: writeError,
    });
}

/** A slice counts for `swh` when it is controlled by it (or carries no controller, e.g. written by hand). */
function belongsTo(slice: Readonly<V1EndpointSlice>, swh: Readonly<ServiceWithHealthchecks>): boolean {
  const controller = slice.metadata?.ownerReferences?.find((r) => r.controller === true);
  return controller === undefined || isControllerRefTo(controller, swh);
}
