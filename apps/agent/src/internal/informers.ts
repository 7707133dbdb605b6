/**
 * The agent's watches, each narrowed server-side to what one node needs (SPEC §6, ADR 0025): its node's Pods, its
 * own EndpointSlices, its own Node, the Services the controller manages (by its label: Services of other software
 * never reach the agent). SWHs are not watched: their specs come on their Services (ADR 0032), so the controller's
 * status writes never reach the agents. Credentials Secrets are watched only in enabled namespaces:
 * credentials-secrets.ts.
 */
import type {
  KubeConfig,
  KubernetesObject,
  V1EndpointSlice,
  V1Node,
  V1Pod,
  V1Service,
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

/** The server-side narrowing of one watch. */
type Selectors = { labelSelector: string } | { fieldSelector: string };

/** Starts the agent's informers; they run until `signal` aborts. */
export function startAgentInformers(opts: {
  kubeConfig: KubeConfig;
  nodeName: string;
  logger: Logger;
  metrics: KubeMetrics;
  signal: AbortSignal;
  resyncMs?: number;
}): AgentInformers {
  const { nodeName } = opts;
  const start = <T extends KubernetesObject>(name: string, path: string, selectors: Selectors) =>
    startInformer<T>({ ...opts, name, path, ...selectors });
  return {
    pods: start<V1Pod>("pods", "/api/v1/pods", { fieldSelector: `spec.nodeName=${nodeName}` }),
    slices: start<V1EndpointSlice>("endpointslices", "/apis/discovery.k8s.io/v1/endpointslices", {
      labelSelector: sliceLabelSelector({ nodeName }),
    }),
    nodes: start<V1Node>("nodes", "/api/v1/nodes", { fieldSelector: `metadata.name=${nodeName}` }),
    services: start<V1Service>("services", "/api/v1/services", { labelSelector: MANAGED_SERVICE_SELECTOR }),
  };
}
