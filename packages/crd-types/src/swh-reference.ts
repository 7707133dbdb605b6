/**
 * An SWH as an object reference (apiVersion, kind, namespace, name, uid): the object an Event of either app is
 * about (`regarding`). Both apps name their SWH Events with it, so they point at the same object the same way.
 */
import { API_VERSION, KIND } from "./constants.js";

/** A reference to a namespaced object, as Events and `kubectl describe` read it. */
export interface SwhReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** The reference to the SWH `ref` (its metadata, or namespace/name/uid); an unknown uid is `""`. */
export function swhReference(ref: {
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly uid?: string | undefined;
}): SwhReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    namespace: ref.namespace ?? "",
    name: ref.name ?? "",
    uid: ref.uid ?? "",
  };
}
