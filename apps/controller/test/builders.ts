/** Small builders for unit tests: each returns a deep-frozen object so a mutating core fails loudly. */
import type { V1EndpointSlice, V1Lease, V1Node, V1Service } from "@kubernetes/client-node";
import {
  API_VERSION,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  type ServiceWithHealthchecks,
} from "@swh/crd-types";
import { ANNOTATION_ENDPOINT_REASONS, type EndpointReason } from "../src/endpoint-reasons.js";

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

/** A Service as the API server stores it for `aSwh()`: allocated cluster IP, server defaults filled in. */
export function aStoredService(
  spec: V1Service["spec"] = {},
  metadata: V1Service["metadata"] = {},
): V1Service {
  return deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      namespace: "ns",
      resourceVersion: "100",
      ownerReferences: [ownerRef()],
      annotations: {
        "network.deckhouse.io/swh-propagated-labels": "[]",
        "network.deckhouse.io/swh-propagated-annotations": "[]",
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

export interface EndpointInput {
  address: string;
  pod?: string;
  node?: string;
  ready?: boolean;
  terminating?: boolean;
}

export function aSlice(opts: {
  name?: string;
  port?: { name?: string; port: number };
  endpoints: EndpointInput[];
  reasons?: Record<string, EndpointReason>;
  node?: string;
}): V1EndpointSlice {
  const node = opts.node ?? opts.endpoints[0]?.node ?? "n1";
  const annotations: Record<string, string> = {};
  if (opts.reasons !== undefined) annotations[ANNOTATION_ENDPOINT_REASONS] = JSON.stringify(opts.reasons);
  return deepFreeze({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    addressType: opts.endpoints[0]?.address.includes(":") ? "IPv6" : "IPv4",
    metadata: {
      name: opts.name ?? `web-${node}-${opts.port?.name ?? "p"}`,
      namespace: "ns",
      labels: { [LABEL_SERVICE_NAME]: "web", [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_NODE]: node },
      annotations,
      ownerReferences: [ownerRef()],
    },
    ports: [{ name: opts.port?.name ?? "http", port: opts.port?.port ?? 8080, protocol: "TCP" }],
    endpoints: opts.endpoints.map((e) => ({
      addresses: [e.address],
      conditions: { ready: e.ready ?? true, serving: e.ready ?? true, terminating: e.terminating ?? false },
      nodeName: e.node ?? node,
      targetRef: {
        kind: "Pod",
        name: e.pod ?? `pod-${e.address}`,
        namespace: "ns",
        uid: `uid-${e.pod ?? e.address}`,
      },
    })),
  });
}

export function aNode(
  name: string,
  ready: "True" | "False" | "Unknown" | undefined,
  since = "2026-01-01T00:00:00Z",
): V1Node {
  return deepFreeze({
    metadata: { name, creationTimestamp: "2025-12-01T00:00:00Z" as unknown as Date },
    status: {
      conditions:
        ready === undefined
          ? []
          : [
              {
                type: "Ready",
                status: ready,
                lastTransitionTime: since as unknown as Date,
                reason: "",
                message: "",
              },
            ],
    },
  });
}

export function aLease(renewTime: string | undefined, leaseDurationSeconds?: number): V1Lease {
  const spec: NonNullable<V1Lease["spec"]> = {};
  if (renewTime !== undefined) spec.renewTime = renewTime as unknown as Date;
  if (leaseDurationSeconds !== undefined) spec.leaseDurationSeconds = leaseDurationSeconds;
  return deepFreeze({ metadata: { name: "swh-agent-n1", namespace: "swh-system" }, spec });
}
