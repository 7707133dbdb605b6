import type { KubernetesObject } from "@kubernetes/client-node";
import type { SwhInput } from "@swh/aggregation";
import type { DefaultedServiceWithHealthchecksSpec, ServiceWithHealthchecksSpec } from "@swh/crd-types";

/** A ServiceWithHealthchecks as the informer holds it (client-node metadata, our spec). */
export type SwhObject = KubernetesObject & { spec?: ServiceWithHealthchecksSpec };

/**
 * Turns a ServiceWithHealthchecks from the informer into the aggregation's input. The API server stores the
 * object defaulted by the CRD schema, so only the containers the aggregation iterates are made safe here;
 * the informer object is never mutated. Returns undefined for objects without identity.
 */
export function swhInputFromObject(obj: Readonly<SwhObject>): SwhInput | undefined {
  const { name, namespace, uid } = obj.metadata ?? {};
  if (!name || !namespace) return undefined;
  const spec = obj.spec ?? {};
  const healthcheck = spec.healthcheck ?? {};
  const defaulted = {
    ...spec,
    type: spec.type ?? "ClusterIP",
    ports: (spec.ports ?? []).map((p) => ({ ...p, protocol: p.protocol ?? "TCP" })),
    healthcheck: {
      initialDelaySeconds: healthcheck.initialDelaySeconds ?? 10,
      periodSeconds: healthcheck.periodSeconds ?? 10,
      probes: healthcheck.probes ?? [],
    },
  } as DefaultedServiceWithHealthchecksSpec;
  const input: SwhInput = { name, namespace, spec: defaulted };
  if (uid) input.uid = uid;
  return input;
}

/** `namespace/name`, the work-queue key of an SWH. */
export function swhKeyOf(obj: { namespace: string; name: string }): string {
  return `${obj.namespace}/${obj.name}`;
}
