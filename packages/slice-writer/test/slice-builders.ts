/**
 * Builders of the slices the controller reads, for unit tests (here, in @swh/status and in the controller): agent
 * slices planned by `planSlices`, next to the SWH and Service builders of @swh/aggregation's tests (Nodes and
 * heartbeat Leases: @swh/node-liveness' node-builders); each returns a deep-frozen object.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { deepFreeze, SWH_UID } from "../../aggregation/test/support/service-builders.js";
import { planSlices } from "../src/index.js";

export * from "../../aggregation/test/support/service-builders.js";

export interface EndpointInput {
  address: string;
  pod?: string;
  node?: string;
  /** The zone the agent read from its node's label (none when the node has no zone). */
  zone?: string;
  ready?: boolean;
  terminating?: boolean;
  /** Drained by its pod's annotation: published not ready, still serving. */
  drained?: boolean;
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
          const ready = e.drained ? false : (e.ready ?? true);
          const reason = opts.reasons?.[e.address];
          return {
            address: e.address,
            conditions: { ready, serving: e.drained === true || ready, terminating: e.terminating ?? false },
            ...(e.drained ? { drained: true as const } : {}),
            nodeName: e.node ?? node,
            ...(e.zone === undefined ? {} : { zone: e.zone }),
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
