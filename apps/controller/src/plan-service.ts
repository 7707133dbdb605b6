/**
 * Decides what to do with an SWH's child Service: create it, update it (including adopting an ownerless,
 * selector-less Service of the same name), leave it alone because it is in sync, or report why it cannot be
 * managed. Pure: the caller performs the plan with its client and turns the outcome into status.
 */
import type { V1OwnerReference, V1Service } from "@kubernetes/client-node";
import { API_VERSION, KIND, type ServiceWithHealthchecks } from "@swh/crd-types";
import { desiredServiceSpec } from "./desired-service-spec.js";
import { mergeServiceSpec } from "./merge-service-spec.js";
import { mergePropagatedMetadata } from "./propagate-metadata.js";
import { sameJson } from "./same-json.js";

/** Why a Service cannot be brought in sync; each is a `ServiceReady=False` reason. */
export const SERVICE_PROBLEMS = {
  ownedByOther: "ServiceOwnedByOther",
  hasSelector: "ServiceHasSelector",
  clusterIPImmutable: "ClusterIPImmutable",
  deleting: "ServiceDeleting",
} as const;
export type ServiceProblem = (typeof SERVICE_PROBLEMS)[keyof typeof SERVICE_PROBLEMS];

/** What to do with the child Service. `service` in create/update is the complete object to send. */
export type ServicePlan =
  | { action: "create"; service: V1Service }
  | { action: "update"; service: V1Service; adopt: boolean }
  | { action: "none" }
  | { action: "blocked"; reason: ServiceProblem; message: string };

/** The controller ownerReference every child of `swh` carries. */
export function ownerReferenceTo(swh: Readonly<ServiceWithHealthchecks>): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: swh.metadata.name ?? "",
    uid: swh.metadata.uid ?? "",
    controller: true,
  };
}

/** True when `ref` is the controller reference to exactly this SWH (same uid, not a namesake). */
export function isControllerRefTo(
  ref: Readonly<V1OwnerReference>,
  swh: Readonly<ServiceWithHealthchecks>,
): boolean {
  return ref.controller === true && ref.kind === KIND && ref.uid === swh.metadata.uid;
}

/**
 * Plans the sync of `swh`'s child Service given the stored Service of the same name (undefined when there is
 * none). Never modifies its inputs; objects in the plan are fresh copies.
 */
export function planService(
  swh: Readonly<ServiceWithHealthchecks>,
  stored: Readonly<V1Service> | undefined,
): ServicePlan {
  const name = swh.metadata.name ?? "";
  const namespace = swh.metadata.namespace ?? "";
  const desired = desiredServiceSpec(swh.spec);
  const owner = ownerReferenceTo(swh);

  if (stored === undefined) {
    const metadata = mergePropagatedMetadata(swh.metadata, {});
    return {
      action: "create",
      service: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace, ...metadata, ownerReferences: [owner] },
        spec: desired,
      },
    };
  }

  const refs = stored.metadata?.ownerReferences ?? [];
  const controllerRef = refs.find((ref) => ref.controller === true);
  const ours = controllerRef !== undefined && isControllerRefTo(controllerRef, swh);
  if (stored.metadata?.deletionTimestamp !== undefined) {
    return {
      action: "blocked",
      reason: SERVICE_PROBLEMS.deleting,
      message: `Service ${name} is being deleted`,
    };
  }
  if (!ours && controllerRef !== undefined) {
    return {
      action: "blocked",
      reason: SERVICE_PROBLEMS.ownedByOther,
      message: `Service ${name} is controlled by ${controllerRef.kind} ${controllerRef.name} (uid ${controllerRef.uid}); it is left untouched`,
    };
  }
  if (!ours && Object.keys(stored.spec?.selector ?? {}).length > 0) {
    return {
      action: "blocked",
      reason: SERVICE_PROBLEMS.hasSelector,
      message: `Service ${name} exists with a pod selector and no owner; it is left untouched (remove it or its selector to let it be adopted)`,
    };
  }

  const spec = mergeServiceSpec(desired, stored.spec);
  if (!spec.ok)
    return { action: "blocked", reason: SERVICE_PROBLEMS.clusterIPImmutable, message: spec.message };
  const metadata = mergePropagatedMetadata(swh.metadata, stored.metadata ?? {});
  const metadataChanged =
    !sameJson(metadata.labels, stored.metadata?.labels) ||
    !sameJson(metadata.annotations, stored.metadata?.annotations);
  if (ours && !spec.changed && !metadataChanged) return { action: "none" };

  return {
    action: "update",
    adopt: !ours,
    service: {
      ...stored,
      metadata: {
        ...stored.metadata,
        ...metadata,
        ownerReferences: ours ? refs.map((ref) => ({ ...ref })) : [...refs.map((ref) => ({ ...ref })), owner],
      },
      spec: spec.spec,
    },
  };
}
