/**
 * Which notification enqueues which key (level-based: handlers only enqueue, the worker reads current state).
 * Two kinds of key: `TARGETS` (re-plan what the node probes) and an SWH's `namespace/name` (reconcile its slices).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { podInfoFromPod, samePodInfo } from "@swh/aggregation";
import { LABEL_SERVICE_NAME, objectKey } from "@swh/crd-types";
import { LABEL_TOPOLOGY_ZONE } from "@swh/crd-types/internal";
import type { WorkQueue } from "@swh/kube";
import type { AgentInformers } from "./informers.js";
import type { OwnSlices } from "./own-slices.js";
import type { PublishedSwhs } from "./published-swhs.js";
import type { ReadinessGates } from "./readiness-gates.js";

/** The work-queue key of a targets pass. */
export const TARGETS = "targets";

/** Adds the key of every published SWH (of `namespace` only, when given). */
export function enqueueSwhs(queue: WorkQueue<string>, published: PublishedSwhs, namespace?: string): void {
  for (const svc of published.services()) {
    if (namespace === undefined || svc.metadata?.namespace === namespace)
      queue.add(objectKey(svc.metadata ?? {}));
  }
}

/** Subscribes the queue to the informers' notifications (see the file comment). */
export function enqueueOnChanges(
  informers: AgentInformers,
  queue: WorkQueue<string>,
  own: { published: PublishedSwhs; slices: OwnSlices; gates: ReadinessGates },
): void {
  const { published, slices, gates } = own;
  for (const event of ["add", "update", "delete"] as const) {
    informers.pods.on(event, (pod, old) => {
      // Our own gate writes come back through the watch; the view already has them.
      if (gates.observe(pod as V1Pod, event === "delete")) return;
      // Kubelets update pod status often; only what the aggregation reads matters.
      if (event === "update" && old && samePod(pod as V1Pod, old as V1Pod)) return;
      queue.add(TARGETS);
      enqueueSwhs(queue, published, pod.metadata?.namespace);
    });
    // A Service carries its SWH's spec (ADR 0032): a change may change the probe targets and the slices.
    informers.services.on(event, (svc) => {
      published.observe(event, svc);
      queue.add(TARGETS);
      queue.add(objectKey(svc.metadata ?? {}));
    });
    informers.nodes.on(event, (node, old) => {
      // Only the zone label of the node reaches the slices.
      const zone = (n: typeof node | undefined) => n?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
      if (event !== "update" || zone(node) !== zone(old)) enqueueSwhs(queue, published);
    });
    informers.slices.on(event, (slice) => {
      // Our own writes come back through the watch; the view already has them.
      if (slices.observe(slice, event === "delete")) return;
      const name = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
      if (!name) return;
      // Paced like probe changes: an echo that overtook its write's response must not bypass the pacing.
      const key = objectKey({ namespace: slice.metadata?.namespace, name });
      queue.addAfter(key, slices.delayMs(key));
    });
  }
}

/** True when two versions of a pod look the same to the aggregation (an unreadable one never does). */
function samePod(a: V1Pod, b: V1Pod): boolean {
  try {
    return samePodInfo(podInfoFromPod(a), podInfoFromPod(b));
  } catch {
    return false; // reported when the pod list is read
  }
}
