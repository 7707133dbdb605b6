/**
 * Which notification asks for which reconcile. Handlers only add keys — SWHs by `namespace/name`, nodes by name —
 * and never do work themselves (level-based: a reconcile reads everything it needs again). They run in every
 * replica; while it does not lead, the keys wait in the queues and a new term adds the whole world anyway.
 */
import { objectKey } from "@swh/crd-types";
import { agentLeaseNode } from "@swh/node-liveness";
import type { ControllerCaches } from "./informers.js";
import type { LeaderTerm } from "./leader-term.js";
import type { ControllerQueues } from "./workers.js";

/** Subscribes the queues to the informers. `term()` is the current term, whose status overlay SWH events end. */
export function routeNotifications(
  caches: ControllerCaches,
  queues: ControllerQueues,
  term: () => LeaderTerm | undefined,
): void {
  const { swhs, services, slices, nodes, leases, index } = caches;
  for (const event of ["add", "update", "delete"] as const) {
    swhs.on(event, (swh) => {
      // The echo of our own status patch ends its overlay here and is still reconciled, as every SWH event is:
      // that run writes nothing, and a failing SWH keeps the retry its status report's echo gives it (ADR 0022).
      term()?.writtenStatus.observe(swh, event === "delete");
      queues.swh.add(objectKey(swh.metadata ?? {}));
    });
    // A Service matters to the SWH of the same name (its child, or a conflict reported in its status).
    services.on(event, (svc) => {
      if (swhs.get(svc.metadata?.name ?? "", svc.metadata?.namespace) !== undefined)
        queues.swh.add(objectKey(svc.metadata ?? {}));
    });
    nodes.on(event, (node) => queues.node.add(node.metadata?.name ?? ""));
    leases.on(event, (lease) => {
      // A heartbeat Lease names its node in full in spec.holderIdentity (its name may be a hash).
      const node = agentLeaseNode(lease);
      if (node !== undefined) queues.node.add(node);
    });
    slices.on(event, (slice) => {
      // Both versions matter: an update can move a slice to another SWH or node, or make it unreadable.
      const before = index.remove(slice);
      const after = event === "delete" ? undefined : index.upsert(slice);
      for (const entry of [before, after]) {
        if (entry === undefined) continue;
        queues.swh.add(entry.swhKey);
        queues.node.add(entry.view.nodeName);
      }
    });
  }
}

/** Adds every key a new term starts from: every SWH, and every node that has slices or a Node object. */
export function enqueueWorld(caches: ControllerCaches, queues: ControllerQueues): void {
  for (const swh of caches.swhs.list()) queues.swh.add(objectKey(swh.metadata ?? {}));
  const nodes = caches.nodes.list().map((n) => n.metadata?.name ?? "");
  for (const node of new Set([...nodes, ...caches.index.nodes()])) queues.node.add(node);
}
