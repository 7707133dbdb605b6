import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { GROUP, PLURAL, type ServiceWithHealthchecks, VERSION } from "@swh/crd-types";

/** The SWH `namespace/name` as the API server has it now (status included). */
export async function readSwh(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<ServiceWithHealthchecks> {
  return (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    name,
  })) as ServiceWithHealthchecks;
}
