import { CoreV1Api, type KubeConfig, type V1Node, type V1NodeCondition } from "@kubernetes/client-node";
import { httpStatusOf, retryOnConflict } from "./internal/api-errors.js";

/** The well-known zone label a real kubelet/cloud provider sets on nodes. */
export const ZONE_LABEL = "topology.kubernetes.io/zone";

/** What {@link createNode} creates. */
export interface NodeSpecLite {
  name: string;
  /** Value of `topology.kubernetes.io/zone`; no label when omitted. */
  zone?: string;
  /** The Ready condition; default true. */
  ready?: boolean;
  labels?: Record<string, string>;
  /** InternalIP addresses in `status.addresses` (pods on the node get the first per family as hostIP). */
  addresses?: string[];
}

/**
 * Creates a Node the way a kubelet registers itself: labels (hostname, zone), then `status` with a
 * Ready condition and addresses through the status subresource.
 */
export async function createNode(kc: KubeConfig, node: NodeSpecLite): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const labels: Record<string, string> = { "kubernetes.io/hostname": node.name, ...node.labels };
  if (node.zone !== undefined) labels[ZONE_LABEL] = node.zone;
  await core.createNode({ body: { metadata: { name: node.name, labels }, spec: {} } });
  await writeNodeStatus(core, node.name, (current) => ({
    ...current,
    addresses: (node.addresses ?? []).map((address) => ({ type: "InternalIP", address })),
    conditions: [readyCondition(node.ready ?? true, new Date())],
  }));
}

/** Sets the Node's Ready condition (as a kubelet heartbeat would, or as the node lifecycle would on loss). */
export async function setNodeReady(kc: KubeConfig, name: string, ready: boolean): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await writeNodeStatus(core, name, (current) => {
    const now = new Date();
    const others = (current.conditions ?? []).filter((c) => c.type !== "Ready");
    const previous = current.conditions?.find((c) => c.type === "Ready");
    const next = readyCondition(ready, now);
    if (previous && previous.status === next.status && previous.lastTransitionTime) {
      next.lastTransitionTime = previous.lastTransitionTime;
    }
    return { ...current, conditions: [...others, next] };
  });
}

/** Deletes the Node; a Node that does not exist is fine. */
export async function deleteNode(kc: KubeConfig, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.deleteNode({ name });
  } catch (error) {
    if (httpStatusOf(error) !== 404) throw error;
  }
}

function readyCondition(ready: boolean, now: Date): V1NodeCondition {
  return {
    type: "Ready",
    status: ready ? "True" : "False",
    reason: ready ? "KubeletReady" : "KubeletNotReady",
    message: ready ? "kubelet is posting ready status" : "set not ready by @swh/testenv",
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
}

async function writeNodeStatus(
  core: CoreV1Api,
  name: string,
  change: (status: NonNullable<V1Node["status"]>) => NonNullable<V1Node["status"]>,
): Promise<void> {
  await retryOnConflict(async () => {
    const node = await core.readNode({ name });
    await core.replaceNodeStatus({ name, body: { ...node, status: change(node.status ?? {}) } });
  });
}
