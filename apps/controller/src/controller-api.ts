/**
 * The API writes the controller makes, behind a small interface so reconcilers receive them as a dependency.
 * Every write names our field manager; the status is changed with a JSON merge patch on the status subresource.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Service,
} from "@kubernetes/client-node";
import { FIELD_MANAGER_CONTROLLER, GROUP, PLURAL, VERSION } from "@swh/crd-types";

/** Writes of the controller. Each rejects with the API error (see `httpStatusOf`). */
export interface ControllerApi {
  createService(service: V1Service): Promise<V1Service>;
  /** Replaces the Service; `service.metadata.resourceVersion` makes it fail with 409 when the cache was stale. */
  replaceService(service: V1Service): Promise<V1Service>;
  /** Merge-patches `status` of the SWH through the status subresource; resolves with the new resourceVersion. */
  patchStatus(namespace: string, name: string, statusPatch: unknown): Promise<string | undefined>;
  /** Deletes an EndpointSlice; a slice already gone counts as deleted. */
  deleteSlice(namespace: string, name: string, uid?: string): Promise<void>;
}

/** The HTTP status of a client-node API error, or undefined for anything else (network errors...). */
export function httpStatusOf(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

/** A short, log- and status-safe description of an API error (client-node messages embed whole bodies). */
export function describeApiError(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  let message: string | undefined;
  if (typeof body === "string") {
    try {
      message = (JSON.parse(body) as { message?: string }).message;
    } catch {
      message = body;
    }
  } else if (typeof body === "object" && body !== null) {
    message = (body as { message?: string }).message;
  }
  message ??= err instanceof Error ? err.message : String(err);
  const status = httpStatusOf(err);
  return (status === undefined ? message : `HTTP ${status}: ${message}`).slice(0, 600);
}

/** The real implementation on a KubeConfig (the controller's own identity). */
export function createControllerApi(kubeConfig: KubeConfig): ControllerApi {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
  return {
    createService: (service) =>
      core.createNamespacedService({
        namespace: service.metadata?.namespace ?? "",
        body: service,
        fieldManager: FIELD_MANAGER_CONTROLLER,
      }),
    replaceService: (service) =>
      core.replaceNamespacedService({
        name: service.metadata?.name ?? "",
        namespace: service.metadata?.namespace ?? "",
        body: service,
        fieldManager: FIELD_MANAGER_CONTROLLER,
      }),
    patchStatus: async (namespace, name, statusPatch) => {
      const updated = await custom.patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: VERSION,
          plural: PLURAL,
          namespace,
          name,
          body: { status: statusPatch },
          fieldManager: FIELD_MANAGER_CONTROLLER,
        },
        mergePatch,
      );
      return (updated as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    },
    deleteSlice: async (namespace, name, uid) => {
      try {
        await discovery.deleteNamespacedEndpointSlice({
          namespace,
          name,
          ...(uid === undefined ? {} : { body: { preconditions: { uid } } }),
        });
      } catch (err) {
        // 404: already gone; 409: the precondition failed, i.e. a new slice of that name replaced it.
        const status = httpStatusOf(err);
        if (status !== 404 && status !== 409) throw err;
      }
    },
  };
}
