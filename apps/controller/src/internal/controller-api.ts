/**
 * The API writes the controller makes, behind a small interface so reconcilers receive them as a dependency.
 * Every write names our field manager; the status is changed with a JSON merge patch on the status subresource.
 */
import type { KubeConfig, V1Node, V1Service } from "@kubernetes/client-node";
import { FIELD_MANAGER_CONTROLLER, GROUP, PLURAL, VERSION } from "@swh/crd-types";
import { createJsonClient, httpStatusOf } from "@swh/kube";

/**
 * Writes of the controller. Each rejects with the API error (read its status with `@swh/kube`'s `httpStatusOf`), and with an abort error once
 * `signal` aborts: a reconcile passes its leadership term's signal (plus a timeout), so a replica that lost the
 * Lease has no write still under way when a successor starts.
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

/** How long a live GET of a Node may take before it counts as failed (the slices are kept then). */
const READ_NODE_TIMEOUT_MS = 10_000;

/**
 * Longest time one write may take. With the default leader timing (renew deadline 10 s, Lease 15 s) a write that
 * cannot finish in this time is abandoned before a successor could have taken over (ADR 0019).
 */
export const WRITE_TIMEOUT_MS = 10_000;

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
  const fieldManager = { fieldManager: FIELD_MANAGER_CONTROLLER };
  const services = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/services`;
  return {
    createService: (service, signal) =>
      api.request<V1Service>({
        method: "POST",
        path: services(service.metadata?.namespace ?? ""),
        query: fieldManager,
        body: service,
        ...(signal === undefined ? {} : { signal }),
      }),
    replaceService: (service, signal) =>
      api.request<V1Service>({
        method: "PUT",
        path: `${services(service.metadata?.namespace ?? "")}/${encodeURIComponent(service.metadata?.name ?? "")}`,
        query: fieldManager,
        body: service,
        ...(signal === undefined ? {} : { signal }),
      }),
    patchStatus: async ({ namespace, name, resourceVersion }, statusPatch, signal) => {
      // A resourceVersion in a merge patch is a precondition: the API server answers 409 when it moved on.
      const updated = await api.request<{ metadata?: { resourceVersion?: string } }>({
        method: "PATCH",
        path: `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURAL}/${encodeURIComponent(name)}/status`,
        query: fieldManager,
        body: {
          ...(resourceVersion === undefined ? {} : { metadata: { resourceVersion } }),
          status: statusPatch,
        },
        contentType: "application/merge-patch+json",
        ...(signal === undefined ? {} : { signal }),
      });
      return updated.metadata?.resourceVersion;
    },
    deleteSlice: async (namespace, name, uid, signal) => {
      try {
        await api.request({
          method: "DELETE",
          path: `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices/${encodeURIComponent(name)}`,
          ...(uid === undefined ? {} : { body: { preconditions: { uid } } }),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (err) {
        // 404: already gone; 409: the precondition failed, i.e. a new slice of that name replaced it.
        const status = httpStatusOf(err);
        if (status !== 404 && status !== 409) throw err;
      }
    },
    readNode: async (name) => {
      try {
        return await api.request<V1Node>({
          method: "GET",
          path: `/api/v1/nodes/${encodeURIComponent(name)}`,
          // The node queue runs one key at a time: a hanging GET must not hold every other node.
          signal: AbortSignal.timeout(READ_NODE_TIMEOUT_MS),
        });
      } catch (err) {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      }
    },
  };
}
