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
  AGENT_LEASE_PREFIX,
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  PLURAL,
  type ServiceWithHealthchecks,
  type ServiceWithHealthchecksSpec,
  VERSION,
} from "@swh/crd-types";
import { ANNOTATION_ENDPOINT_REASONS, type EndpointReason } from "../../src/endpoint-reasons.js";
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
    /** Writes (creates or renews) the agent heartbeat Lease of `node`. */
    renewHeartbeat: async (node: string, leaseDurationSeconds = 30) => {
      const name = `${AGENT_LEASE_PREFIX}${node}`;
      // MicroTime needs six fractional digits; client-node would send a Date with three, which the server rejects.
      const renewTime = new Date().toISOString().replace(/Z$/, "000Z") as unknown as Date;
      const spec = { holderIdentity: `agent-${node}`, leaseDurationSeconds, renewTime };
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

/** A slice as an agent on `node` writes it for `swh` and one Service port. */
export function agentSlice(
  swh: ServiceWithHealthchecks,
  opts: {
    node: string;
    port: { name?: string; port: number };
    endpoints: AgentEndpoint[];
    reasons?: Record<string, EndpointReason>;
  },
): V1EndpointSlice {
  const name = swh.metadata.name ?? "";
  const namespace = swh.metadata.namespace ?? "";
  const annotations: Record<string, string> = {};
  if (opts.reasons !== undefined) annotations[ANNOTATION_ENDPOINT_REASONS] = JSON.stringify(opts.reasons);
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    addressType: "IPv4",
    metadata: {
      name: `${name}-${opts.node}-${opts.port.name ?? "p"}`,
      namespace,
      labels: { [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_NODE]: opts.node },
      annotations,
      ownerReferences: [
        { apiVersion: API_VERSION, kind: KIND, name, uid: swh.metadata.uid ?? "", controller: true },
      ],
    },
    ports: [{ name: opts.port.name ?? "", port: opts.port.port, protocol: "TCP" }],
    endpoints: opts.endpoints.map((e) => ({
      addresses: [e.address],
      conditions: { ready: e.ready ?? true, serving: e.ready ?? true, terminating: false },
      nodeName: opts.node,
      targetRef: { kind: "Pod", name: e.pod, namespace },
    })),
  };
}
