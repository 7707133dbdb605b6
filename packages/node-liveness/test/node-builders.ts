/**
 * Builders of the Nodes and heartbeat Leases the controller reads, for unit tests (here and the controller's);
 * each returns a deep-frozen object.
 */
import type { V1Lease, V1Node } from "@kubernetes/client-node";
import { deepFreeze } from "../../aggregation/test/support/service-builders.js";
import { agentLeaseName } from "../src/index.js";

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
