/**
 * Who controls a ServiceWithHealthchecks' Service, decided in one place for both apps (ADR 0014). The
 * controller adopts or refuses a Service with these rules; the agent publishes EndpointSlices only for a Service
 * that `endpointPublication` allows, because kube-proxy routes a Service's traffic to every slice labelled with its
 * name — writing slices for a Service the SWH does not control would let a namespace editor, who may not write
 * EndpointSlices (CVE-2021-25740), put their pods behind someone else's Service. The reasons these rules give
 * (`SERVICE_PROBLEMS`, `PUBLICATION_BLOCKS`) are in reasons.ts with every other reason code.
 */
import { API_VERSION, KIND } from "./constants.js";
import { type PublicationBlock, SERVICE_PROBLEMS } from "./reasons.js";
import type { ObjectMeta, OwnerReference } from "./types.js";

/** An SWH as ownership sees it: its name and uid (a namesake with another uid is another object). */
export interface OwnerIdentity {
  metadata?: Pick<ObjectMeta, "name" | "uid"> | undefined;
}

/** The parts of a Service (core/v1 shape) ownership reads. `@kubernetes/client-node`'s V1Service fits. */
export interface ServiceControlView {
  metadata?: { name?: string; namespace?: string; ownerReferences?: readonly OwnerReference[] } | undefined;
  spec?: { selector?: Readonly<Record<string, string>> | undefined } | undefined;
}

/**
 * Services an SWH never adopts or feeds, whatever their owners say: `default/kubernetes` routes to the API
 * server, and any editor of `default` could otherwise point it at their pods.
 */
const RESERVED_SERVICES: readonly { namespace: string; name: string }[] = [
  { namespace: "default", name: "kubernetes" },
];

/** Returns the controller ownerReference every child of `swh` carries (no `blockOwnerDeletion`: ADR 0009). */
export function ownerReferenceTo(swh: Readonly<OwnerIdentity>): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: swh.metadata?.name ?? "",
    uid: swh.metadata?.uid ?? "",
    controller: true,
  };
}

/** True when `ref` is the controller reference to exactly this SWH (same uid, not a namesake). */
export function isControllerRefTo(ref: Readonly<OwnerReference>, swh: Readonly<OwnerIdentity>): boolean {
  const uid = swh.metadata?.uid;
  return ref.controller === true && ref.kind === KIND && uid !== undefined && uid !== "" && ref.uid === uid;
}

/** Returns the controller ownerReference of an object, or undefined when nothing controls it. */
export function controllerRefOf(
  meta: { ownerReferences?: readonly OwnerReference[] | undefined } | undefined,
): OwnerReference | undefined {
  return meta?.ownerReferences?.find((ref) => ref.controller === true);
}

/** True when `obj`'s controller ownerReference points to exactly this SWH. */
export function isControlledBy(
  obj: { metadata?: { ownerReferences?: readonly OwnerReference[] | undefined } | undefined },
  swh: Readonly<OwnerIdentity>,
): boolean {
  const ref = controllerRefOf(obj.metadata);
  return ref !== undefined && isControllerRefTo(ref, swh);
}

/** True for a Service in `RESERVED_SERVICES`. */
export function isReservedService(namespace: string, name: string): boolean {
  return RESERVED_SERVICES.some((s) => s.namespace === namespace && s.name === name);
}

/** True when a Service selects pods itself (the endpoint controller of Kubernetes feeds it then). */
export function hasSelector(service: Readonly<ServiceControlView>): boolean {
  return Object.keys(service.spec?.selector ?? {}).length > 0;
}

/** Whether EndpointSlices may be written for an SWH, and if not, why. */
export type Publication = { publish: true } | { publish: false; reason: PublicationBlock; message: string };

/**
 * Decides whether slices labelled with the SWH's name may exist: only while the same-named Service (`service`,
 * undefined when there is none) exists, is not reserved, has no selector and is controlled by this SWH (a
 * controller ownerReference of kind ServiceWithHealthchecks with its uid). Pure. The caller must pass a Service
 * read from a synced cache: "missing" here means gone, and leads to the slices being deleted.
 */
export function endpointPublication(
  swh: Readonly<OwnerIdentity> & { metadata?: Pick<ObjectMeta, "namespace"> | undefined },
  service: Readonly<ServiceControlView> | undefined,
): Publication {
  const namespace = swh.metadata?.namespace ?? "";
  const name = swh.metadata?.name ?? "";
  if (isReservedService(namespace, name)) {
    return {
      publish: false,
      reason: SERVICE_PROBLEMS.reserved,
      message: `Service ${namespace}/${name} is reserved for the cluster; it is never fed`,
    };
  }
  if (service === undefined) {
    return { publish: false, reason: "ServiceMissing", message: `Service ${name} does not exist` };
  }
  const controller = controllerRefOf(service.metadata);
  if (controller !== undefined && !isControllerRefTo(controller, swh)) {
    return {
      publish: false,
      reason: SERVICE_PROBLEMS.ownedByOther,
      message: `Service ${name} is controlled by ${controller.kind} ${controller.name} (uid ${controller.uid})`,
    };
  }
  if (hasSelector(service)) {
    return {
      publish: false,
      reason: SERVICE_PROBLEMS.hasSelector,
      message: `Service ${name} selects pods itself`,
    };
  }
  if (controller === undefined) {
    return {
      publish: false,
      reason: "ServiceNotAdopted",
      message: `Service ${name} is not (yet) controlled by this ServiceWithHealthchecks`,
    };
  }
  return { publish: true };
}
