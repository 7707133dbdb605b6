/** Small builders for unit tests: each returns a deep-frozen object so a mutating core fails loudly. */
import type { V1EndpointSlice, V1Lease, V1Node, V1Service } from "@kubernetes/client-node";
import {
  API_VERSION,
  KIND,
  LABEL_MANAGED_SERVICE,
  MANAGED_BY,
  type ServiceWithHealthchecks,
} from "@swh/crd-types";
import { agentLeaseName, planSlices, readSlice, type SliceView } from "@swh/slice-writer";

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
      labels: { [LABEL_MANAGED_SERVICE]: MANAGED_BY },
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

/** What an agent reports for a failing address (the reasons annotation). */
export interface ReasonInput {
  probe: string;
  reason: string;
  message: string;
}

/**
 * A slice exactly as the agent on `node` writes it for `web` in `ns`: built by the agent's own planner
 * (`planSlices` of `@swh/slice-writer`), never by hand, so a change of the slice contract shows up here.
 * `name` renames the planned slice (to follow one object through updates).
 */
export function aSlice(opts: {
  name?: string;
  port?: { name?: string; port: number };
  endpoints: EndpointInput[];
  reasons?: Record<string, ReasonInput>;
  node?: string;
}): V1EndpointSlice {
  const node = opts.node ?? opts.endpoints[0]?.node ?? "n1";
  const plan = planSlices({
    swh: { name: "web", namespace: "ns", uid: SWH_UID },
    nodeName: node,
    existing: [],
    groups: [
      {
        portName: opts.port?.name ?? "http",
        port: opts.port?.port ?? 8080,
        protocol: "TCP",
        addressFamily: opts.endpoints[0]?.address.includes(":") ? "IPv6" : "IPv4",
        endpoints: opts.endpoints.map((e) => {
          const ready = e.ready ?? true;
          const reason = opts.reasons?.[e.address];
          return {
            address: e.address,
            conditions: { ready, serving: ready, terminating: e.terminating ?? false },
            nodeName: e.node ?? node,
            targetRef: {
              kind: "Pod",
              name: e.pod ?? `pod-${e.address}`,
              namespace: "ns",
              uid: `uid-${e.pod ?? e.address}`,
            },
            ...(reason === undefined
              ? {}
              : {
                  failure: {
                    probeIndex: 0,
                    failingProbe: reason.probe,
                    reason: reason.reason,
                    message: reason.message,
                    targetId: `target-${e.address}`,
                  },
                }),
          };
        }),
      },
    ],
  });
  const [slice] = plan.create;
  if (slice === undefined || plan.create.length !== 1) throw new Error("aSlice: expected one planned slice");
  if (opts.name !== undefined) slice.metadata = { ...slice.metadata, name: opts.name };
  return deepFreeze(slice);
}

/** `aSlice` as the controller's index reads it (`readSlice`). */
export function aView(opts: Parameters<typeof aSlice>[0]): SliceView {
  const view = readSlice(aSlice(opts));
  if (view === undefined) throw new Error("aView: the planned slice does not read back");
  return view;
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

/** The heartbeat Lease of the agent of `node`, as the agent writes it. */
export function aLease(renewTime: string | undefined, leaseDurationSeconds?: number, node = "n1"): V1Lease {
  const spec: NonNullable<V1Lease["spec"]> = { holderIdentity: node };
  if (renewTime !== undefined) spec.renewTime = renewTime as unknown as Date;
  if (leaseDurationSeconds !== undefined) spec.leaseDurationSeconds = leaseDurationSeconds;
  return deepFreeze({ metadata: { name: agentLeaseName(node), namespace: "swh-system" }, spec });
}
