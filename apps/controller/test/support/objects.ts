/** Helpers the integration tests use to act as a user and as an agent (admin identity, real API objects). */
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1EndpointSlice,
  type V1Service,
} from "@kubernetes/client-node";
import {
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  type ServiceWithHealthchecksSpec,
  VERSION,
} from "@swh/crd-types";
import { agentLeaseName } from "@swh/node-liveness";
import { planSlices } from "@swh/slice-writer";
import { INSTALL_NAMESPACE } from "./harness.js";

export function clients(kc: KubeConfig) {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
  return {
    core,
    discovery,
    createSwh: async (
      namespace: string,
      name: string,
      spec: ServiceWithHealthchecksSpec,
      meta: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
    ) =>
      (await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        body: { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace, ...meta }, spec },
      })) as ServiceWithHealthchecks,
    patchSwh: (namespace: string, name: string, patch: object) =>
      custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: patch },
        merge,
      ),
    getSwh: async (namespace: string, name: string) =>
      (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name,
      })) as ServiceWithHealthchecks,
    deleteSwh: (namespace: string, name: string) =>
      custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name,
      }),
    /** The Service, or undefined when it does not exist. */
    getService: async (namespace: string, name: string): Promise<V1Service | undefined> => {
      try {
        return await core.readNamespacedService({ namespace, name });
      } catch (err) {
        if ((err as { code?: number }).code === 404) return undefined;
        throw err;
      }
    },
    listSlices: async (namespace: string, labelSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY}`) =>
      (await discovery.listNamespacedEndpointSlice({ namespace, labelSelector })).items,
    createSlice: (slice: V1EndpointSlice) =>
      discovery.createNamespacedEndpointSlice({ namespace: slice.metadata?.namespace ?? "", body: slice }),
    replaceSlice: (slice: V1EndpointSlice) =>
      discovery.replaceNamespacedEndpointSlice({
        namespace: slice.metadata?.namespace ?? "",
        name: slice.metadata?.name ?? "",
        body: slice,
      }),
    /** Writes (creates or renews) the agent heartbeat Lease of `node`, as the agent does. */
    renewHeartbeat: async (node: string, leaseDurationSeconds = 30) => {
      const name = agentLeaseName(node);
      // MicroTime needs six fractional digits; client-node would send a Date with three, which the server rejects.
      const renewTime = new Date().toISOString().replace(/Z$/, "000Z") as unknown as Date;
      const spec = { holderIdentity: node, leaseDurationSeconds, renewTime };
      try {
        const lease = await coordination.readNamespacedLease({ namespace: INSTALL_NAMESPACE, name });
        await coordination.replaceNamespacedLease({
          namespace: INSTALL_NAMESPACE,
          name,
          body: { ...lease, spec: { ...lease.spec, ...spec } },
        });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
        await coordination.createNamespacedLease({
          namespace: INSTALL_NAMESPACE,
          body: { metadata: { name }, spec },
        });
      }
    },
  };
}

export interface AgentEndpoint {
  address: string;
  pod: string;
  ready?: boolean;
}

/**
 * A slice as the agent on `node` writes it for `swh` and one Service port: built by the agent's own planner
 * (`planSlices`), so these tests see the slice contract as it is.
 */
export function agentSlice(
  swh: ServiceWithHealthchecks,
  opts: {
    node: string;
    port: { name?: string; port: number };
    endpoints: AgentEndpoint[];
    reasons?: Record<string, { probe: string; reason: string; message: string }>;
  },
): V1EndpointSlice {
  const name = swh.metadata.name ?? "";
  const namespace = swh.metadata.namespace ?? "";
  const [slice] = planSlices({
    swh: { name, namespace, uid: swh.metadata.uid ?? "" },
    nodeName: opts.node,
    existing: [],
    groups: [
      {
        portName: opts.port.name ?? "",
        port: opts.port.port,
        protocol: "TCP",
        addressFamily: "IPv4",
        endpoints: opts.endpoints.map((e) => {
          const ready = e.ready ?? true;
          const reason = opts.reasons?.[e.address];
          return {
            address: e.address,
            conditions: { ready, serving: ready, terminating: false },
            nodeName: opts.node,
            targetRef: { kind: "Pod", name: e.pod, namespace, uid: `uid-${e.pod}` },
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
  }).create;
  if (slice === undefined) throw new Error("agentSlice: no endpoints, no slice");
  return slice;
}
