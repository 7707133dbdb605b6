/**
 * Decides what to do with an SWH's child Service: create it, update it (including adopting an ownerless,
 * selector-less Service of the same name), leave it alone because it is in sync, or report why it cannot be
 * managed. Pure: the caller performs the plan with its client and turns the outcome into status.
 */
import type { V1Service } from "@kubernetes/client-node";
import {
  LABEL_MANAGED_SERVICE,
  MANAGED_BY,
  SERVICE_PROBLEMS,
  type ServiceProblem,
  type ServiceWithHealthchecks,
} from "@swh/crd-types";
import {
  ANNOTATION_SWH_SPEC,
  controllerRefOf,
  hasSelector,
  isControllerRefTo,
  isReservedService,
  ownerReferenceTo,
  type PublishedVerdicts,
  publishedSpecValue,
} from "@swh/crd-types/internal";
import { desiredServiceSpec } from "./internal/desired-service-spec.js";
import { mergeServiceSpec } from "./internal/merge-service-spec.js";
import { mergePropagatedMetadata } from "./internal/propagate-metadata.js";
import { sameJson } from "./same-json.js";

/** What to do with the child Service. `service` in create/update is the complete object to send. */
export type ServicePlan =
  | { action: "create"; service: V1Service }
  | { action: "update"; service: V1Service; adopt: boolean }
  | { action: "none" }
  | { action: "blocked"; reason: ServiceProblem; message: string };

/**
 * Plans the sync of `swh`'s child Service given the stored Service of the same name (undefined when there is
 * none). Never modifies its inputs; objects in the plan are fresh copies. The ownership rules (ADR 0014) come
 * from @swh/crd-types, where the agent reads them too: a reserved Service (`default/kubernetes`) is never created
 * nor written, a Service controlled by anything else or selecting pods is left alone, and only an ownerless,
 * selector-less Service is adopted. Every refusal says that no endpoints are published, because the agents
 * apply the same rules and withhold them. `verdicts` (the controller's zone-hints verdict, ADR 0035) are
 * published with the spec; a changed verdict is a Service update like a changed spec.
 */
export function planService(
  swh: Readonly<ServiceWithHealthchecks>,
  stored: Readonly<V1Service> | undefined,
  verdicts: PublishedVerdicts = {},
): ServicePlan {
  const name = swh.metadata.name ?? "";
  const namespace = swh.metadata.namespace ?? "";
  const desired = desiredServiceSpec(swh.spec);
  const owner = ownerReferenceTo(swh);

  if (isReservedService(namespace, name)) {
    return {
      action: "blocked",
      reason: SERVICE_PROBLEMS.reserved,
      message: `Service ${namespace}/${name} is reserved for the cluster's API server; it is never adopted and no endpoints are published for it (rename the ServiceWithHealthchecks)`,
    };
  }
  if (stored === undefined) return { action: "create", service: newServiceFor(swh, verdicts) };

  const refs = stored.metadata?.ownerReferences ?? [];
  const controllerRef = controllerRefOf(stored.metadata);
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
      message: `Service ${name} is controlled by ${controllerRef.kind} ${controllerRef.name} (uid ${controllerRef.uid}); it is left untouched and no endpoints are published for it`,
    };
  }
  if (!ours && hasSelector(stored)) {
    return {
      action: "blocked",
      reason: SERVICE_PROBLEMS.hasSelector,
      message: `Service ${name} exists with a pod selector and no owner; it is left untouched and no endpoints are published for it (remove it or its selector to let it be adopted)`,
    };
  }

  const spec = mergeServiceSpec(desired, stored.spec);
  if (!spec.ok)
    return { action: "blocked", reason: SERVICE_PROBLEMS.clusterIPImmutable, message: spec.message };
  const metadata = managedMetadata(swh, stored.metadata ?? {}, verdicts);
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

/**
 * The Service the controller creates for `swh` when there is none: same name and namespace, the SWH's Service
 * fields and no selector, controlled by the SWH (ADR 0014), labelled for the agents' watch (ADR 0025) and carrying
 * the SWH's spec for the agents (ADR 0032). Tests that run agents without a controller create exactly this.
 */
export function newServiceFor(
  swh: Readonly<ServiceWithHealthchecks>,
  verdicts: PublishedVerdicts = {},
): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: swh.metadata.name ?? "",
      namespace: swh.metadata.namespace ?? "",
      ...managedMetadata(swh, {}, verdicts),
      ownerReferences: [ownerReferenceTo(swh)],
    },
    spec: desiredServiceSpec(swh.spec),
  };
}

/**
 * The labels and annotations of a Service this controller manages: the SWH's propagated ones, plus the label the
 * agents watch Services by (ADR 0025) and the SWH's spec the agents read (ADR 0032). Set on create, on adoption,
 * and on every update — so a Service created by an older controller, or whose label or spec someone removed or
 * edited, is put right on its next reconcile; without them no agent would see the Service or know what to probe.
 */
function managedMetadata(
  swh: Readonly<ServiceWithHealthchecks>,
  stored: Parameters<typeof mergePropagatedMetadata>[1],
  verdicts: PublishedVerdicts,
) {
  const metadata = mergePropagatedMetadata(swh.metadata, stored);
  metadata.labels[LABEL_MANAGED_SERVICE] = MANAGED_BY;
  metadata.annotations[ANNOTATION_SWH_SPEC] = publishedSpecValue(swh, verdicts);
  return metadata;
}
