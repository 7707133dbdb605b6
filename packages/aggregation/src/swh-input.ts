import { applyDefaults, type ServiceWithHealthchecksSpec } from "@swh/crd-types";
import { memoizeFrozen } from "./internal/memoize-frozen.js";
import type { SwhInput } from "./types.js";

/**
 * The fields of a ServiceWithHealthchecks that `swhInputFromObject` reads: a structural shape, so an informer
 * object (client-node metadata, our spec) fits and this package needs no Kubernetes client.
 */
export interface SwhObject {
  metadata?: { name?: string; namespace?: string; uid?: string };
  spec?: ServiceWithHealthchecksSpec;
}

/**
 * Turns a ServiceWithHealthchecks from the informer into the aggregation's input, with every schema default
 * applied (the API server applies them too; applying them again is harmless and protects against objects
 * stored before a default existed). The informer object is never mutated. Returns undefined for objects
 * without identity. Computed once per frozen (informer) object; the result is shared and must not be mutated.
 */
export const swhInputFromObject: (obj: Readonly<SwhObject>) => SwhInput | undefined =
  memoizeFrozen(readSwhInput);

function readSwhInput(obj: Readonly<SwhObject>): SwhInput | undefined {
  const { name, namespace, uid } = obj.metadata ?? {};
  if (!name || !namespace) return undefined;
  const input: SwhInput = { name, namespace, spec: applyDefaults(obj.spec ?? {}) };
  if (uid) input.uid = uid;
  return input;
}
