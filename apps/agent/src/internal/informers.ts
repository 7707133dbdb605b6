/**
 * The agent's watches, each narrowed server-side to what one node needs (SPEC §6, ADR 0025): its node's Pods, its
 * own EndpointSlices, its own Node, the Services the controller manages (by its label: Services of other software
 * never reach the agent). SWHs are not watched: their specs come on their Services (ADR 0032), so the controller's
 * status writes never reach the agents. Credentials Secrets are watched only in enabled namespaces:
 * credentials-secrets.ts.
 */
import {
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
  type V1EndpointSlice,
  type V1Node,
  type V1Pod,
  type V1Service,
} from "@kubernetes/client-node";
import { MANAGED_SERVICE_SELECTOR } from "@swh/crd-types";
import { type Informer, type KubeMetrics, type Logger, startInformer } from "@swh/kube";
import { sliceLabelSelector } from "@swh/slice-writer";

/** Every informer the agent reads from. */
export interface AgentInformers {
  pods: Informer<V1Pod>;
  slices: Informer<V1EndpointSlice>;
  nodes: Informer<V1Node>;
  services: Informer<V1Service>;
}

/** Starts the agent's informers; they run until `signal` aborts. */
export function startAgentInformers(opts: {
  kubeConfig: KubeConfig;
  nodeName: string;
  logger: Logger;
  metrics: KubeMetrics;
  signal: AbortSignal;
  resyncMs?: number;
}): AgentInformers {
  const { kubeConfig, nodeName, logger, metrics, signal } = opts;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const common = {
    kubeConfig,
    logger,
    metrics,
    signal,
    ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
  };

  const podSelector = `spec.nodeName=${nodeName}`;
  const sliceSelector = sliceLabelSelector({ nodeName });
  const nodeSelector = `metadata.name=${nodeName}`;
  return {
    pods: startInformer<V1Pod>({
      ...common,
      name: "pods",
      path: "/api/v1/pods",
      fieldSelector: podSelector,
      list: (page) => core.listPodForAllNamespaces({ fieldSelector: podSelector, ...page }),
    }),
    slices: startInformer<V1EndpointSlice>({
      ...common,
      name: "endpointslices",
      path: "/apis/discovery.k8s.io/v1/endpointslices",
      labelSelector: sliceSelector,
      list: (page) => discovery.listEndpointSliceForAllNamespaces({ labelSelector: sliceSelector, ...page }),
    }),
    nodes: startInformer<V1Node>({
      ...common,
      name: "nodes",
      path: "/api/v1/nodes",
      fieldSelector: nodeSelector,
      list: (page) => core.listNode({ fieldSelector: nodeSelector, ...page }),
    }),
    services: startInformer<V1Service>({
      ...common,
      name: "services",
      path: "/api/v1/services",
      labelSelector: MANAGED_SERVICE_SELECTOR,
      list: (page) => core.listServiceForAllNamespaces({ labelSelector: MANAGED_SERVICE_SELECTOR, ...page }),
    }),
  };
}
