/**
 * The I/O of a reconcile: the API writes the controller makes (behind a small interface, so reconciles receive
 * them as a dependency), where Events go, the metrics, the run's logger and its signal. Every write names our
 * field manager; the status is changed with a JSON merge patch on the status subresource.
 */
import type { KubeConfig, V1Node, V1Service } from "@kubernetes/client-node";
import { type ConditionReason, type EventReason, GROUP, PLURAL, VERSION } from "@swh/crd-types";
import { FIELD_MANAGER_CONTROLLER } from "@swh/crd-types/internal";
import {
  createJsonClient,
  type EventSubject,
  type EventType,
  httpStatusOf,
  type JsonRequest,
  type Logger,
} from "@swh/kube";
import type { ControllerMetrics } from "@swh/metrics";

/**
 * Writes of the controller. Each rejects with the API error (read its status with `@swh/kube`'s `httpStatusOf`),
 * and with an abort error once `signal` aborts: a reconcile passes its leadership term's signal (plus a timeout),
 * so a replica that lost the Lease has no write still under way when a successor starts.
 */
export interface ControllerApi {
  createService(service: V1Service, signal?: AbortSignal): Promise<V1Service>;
  /** Replaces the Service; `service.metadata.resourceVersion` makes it fail with 409 when the cache was stale. */
  replaceService(service: V1Service, signal?: AbortSignal): Promise<V1Service>;
  /**
   * Merge-patches `status` of the SWH through the status subresource, only if the SWH is still at
   * `resourceVersion` (409 otherwise: someone — e.g. a newer leader — wrote since); resolves with the new
   * resourceVersion.
   */
  patchStatus(
    target: { namespace: string; name: string; resourceVersion: string | undefined },
    statusPatch: unknown,
    signal?: AbortSignal,
  ): Promise<string | undefined>;
  /** Deletes an EndpointSlice; a slice already gone counts as deleted. */
  deleteSlice(namespace: string, name: string, uid?: string, signal?: AbortSignal): Promise<void>;
  /**
   * Reads the Node `name` from the API server (not from a cache): undefined on 404, the only proof that it is
   * gone; rejects on any other error.
   */
  readNode(name: string): Promise<V1Node | undefined>;
}

/** Where Events go; `@swh/kube`'s EventRecorder fits. Reasons are ours, from `@swh/crd-types`. */
export interface EventRecorderLike {
  record(
    subject: EventSubject,
    type: EventType,
    reason: EventReason | ConditionReason,
    message: string,
  ): void;
}

/** What a reconcile talks to besides the data it was given. */
export interface ReconcileIo {
  api: ControllerApi;
  events: EventRecorderLike;
  metrics: ControllerMetrics;
  /** The run's logger (the queue's: its lines carry the run's `reconcileID`). */
  logger: Logger;
  /**
   * Aborted the moment this replica stops leading, and for a run of the queue when it exceeds its deadline
   * (ADR 0022); every write carries it (`termWriteSignal`).
   */
  signal: AbortSignal;
}

/** How long a live GET of a Node may take before it counts as failed (the slices are kept then). */
const READ_NODE_TIMEOUT_MS = 10_000;

/**
 * Longest time one write may take. With the default leader timing (renew deadline 10 s, Lease 15 s) a write that
 * cannot finish in this time is abandoned before a successor could have taken over (ADR 0019).
 */
const WRITE_TIMEOUT_MS = 10_000;

/** The signal of one write: aborted when the leadership term ends or after `WRITE_TIMEOUT_MS`, whichever is first. */
export function termWriteSignal(term: AbortSignal): AbortSignal {
  return AbortSignal.any([term, AbortSignal.timeout(WRITE_TIMEOUT_MS)]);
}

/**
 * The real implementation on a KubeConfig (the controller's own identity). The writes go through `@swh/kube`'s
 * JSON client rather than client-node's generated clients (about a third of the controller's CPU during bulk
 * reconciles, ADR 0012); returned objects are therefore plain JSON, with timestamps as strings.
 */
export function createControllerApi(kubeConfig: KubeConfig): ControllerApi {
  const api = createJsonClient(kubeConfig);
  const send = <T>(req: JsonRequest, signal: AbortSignal | undefined) =>
    api.request<T>(signal === undefined ? req : { ...req, signal });
  const query = { fieldManager: FIELD_MANAGER_CONTROLLER };
  const services = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/services`;
  return {
    createService: (service, signal) =>
      send<V1Service>(
        { method: "POST", path: services(service.metadata?.namespace ?? ""), query, body: service },
        signal,
      ),
    replaceService: (service, signal) => {
      const path = `${services(service.metadata?.namespace ?? "")}/${encodeURIComponent(service.metadata?.name ?? "")}`;
      return send<V1Service>({ method: "PUT", path, query, body: service }, signal);
    },
    patchStatus: async ({ namespace, name, resourceVersion }, statusPatch, signal) => {
      // A resourceVersion in a merge patch is a precondition: the API server answers 409 when it moved on.
      const metadata = resourceVersion === undefined ? {} : { metadata: { resourceVersion } };
      const updated = await send<{ metadata?: { resourceVersion?: string } }>(
        {
          method: "PATCH",
          path: `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURAL}/${encodeURIComponent(name)}/status`,
          query,
          body: { ...metadata, status: statusPatch },
          contentType: "application/merge-patch+json",
        },
        signal,
      );
      return updated.metadata?.resourceVersion;
    },
    deleteSlice: async (namespace, name, uid, signal) => {
      const path = `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices/${encodeURIComponent(name)}`;
      const preconditions = uid === undefined ? {} : { body: { preconditions: { uid } } };
      // 404: already gone; 409: the precondition failed, i.e. a new slice of that name replaced it.
      await send({ method: "DELETE", path, ...preconditions }, signal).catch(unless(404, 409));
    },
    // The node queue runs one key at a time: a hanging GET must not hold every other node.
    readNode: (name) =>
      send<V1Node | undefined>(
        { method: "GET", path: `/api/v1/nodes/${encodeURIComponent(name)}` },
        AbortSignal.timeout(READ_NODE_TIMEOUT_MS),
      ).catch(unless(404)),
  };
}

/** A rejection handler that resolves with undefined for the given HTTP statuses and rethrows anything else. */
function unless(...statuses: number[]): (err: unknown) => undefined {
  return (err) => {
    if (statuses.includes(httpStatusOf(err) ?? 0)) return undefined;
    throw err;
  };
}
