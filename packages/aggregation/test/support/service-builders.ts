/** Small builders of SWHs and their Services for unit tests: each returns a deep-frozen object so a mutating core fails loudly. */
import type { V1Service } from "@kubernetes/client-node";
import {
  API_VERSION,
  KIND,
  LABEL_MANAGED_SERVICE,
  MANAGED_BY,
  type ServiceWithHealthchecks,
} from "@swh/crd-types";
import { ANNOTATION_SWH_SPEC, publishedSpecValue } from "@swh/crd-types/internal";
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export const SWH_UID = "swh-uid-1";

export function aSwh(
  spec: Partial<ServiceWithHealthchecks["spec"]> = {},
  metadata: Partial<ServiceWithHealthchecks["metadata"]> = {},
  status?: ServiceWithHealthchecks["status"],
): ServiceWithHealthchecks {
  const swh: ServiceWithHealthchecks = {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: "web", namespace: "ns", uid: SWH_UID, generation: 3, ...metadata },
    spec: { ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }], ...spec },
  };
  if (status !== undefined) swh.status = status;
  return deepFreeze(swh);
}

export function ownerRef(uid = SWH_UID, name = "web") {
  return { apiVersion: API_VERSION, kind: KIND, name, uid, controller: true };
}

/**
 * A Service as the API server stores it for `swh` (default `aSwh()`): allocated cluster IP, server defaults filled
 * in, the SWH's spec published for the agents (ADR 0032).
 */
export function aStoredService(
  spec: V1Service["spec"] = {},
  metadata: V1Service["metadata"] = {},
  swh: ServiceWithHealthchecks = aSwh(),
): V1Service {
  return deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      namespace: "ns",
      resourceVersion: "100",
      ownerReferences: [ownerRef()],
      labels: { [LABEL_MANAGED_SERVICE]: MANAGED_BY },
      annotations: {
        "network.deckhouse.io/swh-propagated-labels": "[]",
        "network.deckhouse.io/swh-propagated-annotations": "[]",
        [ANNOTATION_SWH_SPEC]: publishedSpecValue(swh),
      },
      ...metadata,
    },
    spec: {
      type: "ClusterIP",
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10"],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
      sessionAffinity: "None",
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      ...spec,
    },
  });
}
