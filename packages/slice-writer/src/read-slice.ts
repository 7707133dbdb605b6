/**
 * The reader of the slice contract (ADR 0013): what an agent-written EndpointSlice says, as plain data. The
 * agent's restart seeding and the controller's index, node cleanup and status all read slices through this one
 * function, so the writer (`planSlices`) and its readers cannot drift apart. The node is the full name from
 * `ANNOTATION_NODE_NAME` (or, on slices written before it existed, the endpoints' `nodeName`), never the node
 * label, which holds a hash for names longer than 63 characters.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import {
  ANNOTATION_ENDPOINT_REASONS,
  ANNOTATION_NODE_NAME,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
} from "@swh/crd-types";
import { type EndpointReason, parseReasons } from "./internal/reasons-codec.js";

export type { EndpointReason };

/** One endpoint of a slice as read back. */
export interface SliceEndpointView {
  /** The endpoint's (first) address; agent slices hold one address per endpoint. */
  address: string;
  /**
   * EndpointSlice semantics for absent conditions: `ready` absent counts as true, `serving` absent as `ready`,
   * `terminating` absent as false.
   */
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  zone?: string;
  targetRef?: { kind?: string; name?: string; namespace?: string; uid?: string };
  /** Why the endpoint does not serve on this port, from the reasons annotation; absent when it passes. */
  reason?: EndpointReason;
}

/** An agent-written slice as read back: whose it is, which port it carries, and its endpoints with reasons. */
export interface SliceView {
  /** The SWH (and Service) name: `kubernetes.io/service-name`. */
  swhName: string;
  namespace: string;
  /** The full name of the node whose agent wrote the slice. */
  nodeName: string;
  /** Service port name, "" when unnamed. */
  portName: string;
  /** The resolved container port. */
  port: number;
  protocol: string;
  appProtocol?: string;
  addressFamily: "IPv4" | "IPv6";
  endpoints: SliceEndpointView[];
}

type SliceLike = Readonly<Pick<V1EndpointSlice, "metadata" | "endpoints">>;

/**
 * The full name of the node whose agent wrote `slice`: `ANNOTATION_NODE_NAME`, else the first endpoint's
 * `nodeName` (slices written before the annotation existed), else undefined. Never the node label.
 */
export function sliceNodeName(slice: SliceLike): string | undefined {
  const annotated = slice.metadata?.annotations?.[ANNOTATION_NODE_NAME];
  if (annotated !== undefined && annotated !== "") return annotated;
  for (const endpoint of slice.endpoints ?? []) {
    if (endpoint.nodeName !== undefined && endpoint.nodeName !== "") return endpoint.nodeName;
  }
  return undefined;
}

/**
 * Reads `slice` into a `SliceView`, or returns undefined when it is not an agent-written slice or is malformed:
 * not managed by us, no service-name label or namespace, no node identity, not exactly one numbered port, an
 * address type other than IPv4/IPv6. Malformed input is normal (hand edits, older writers, other tools); this
 * never throws. Endpoints without an address are skipped; a malformed reasons annotation reads as no reasons.
 */
export function readSlice(slice: Readonly<V1EndpointSlice>): SliceView | undefined {
  const metadata = slice.metadata;
  const labels = metadata?.labels ?? {};
  if (labels[LABEL_MANAGED_BY] !== MANAGED_BY) return undefined;
  const swhName = labels[LABEL_SERVICE_NAME];
  const namespace = metadata?.namespace;
  const nodeName = sliceNodeName(slice);
  const ports = slice.ports ?? [];
  const port = ports[0];
  const addressFamily = slice.addressType;
  if (!swhName || !namespace || nodeName === undefined) return undefined;
  if (ports.length !== 1 || typeof port?.port !== "number") return undefined;
  if (addressFamily !== "IPv4" && addressFamily !== "IPv6") return undefined;
  const reasons = parseReasons(metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS]);
  const endpoints: SliceEndpointView[] = [];
  for (const endpoint of Array.isArray(slice.endpoints) ? slice.endpoints : []) {
    const address = endpoint?.addresses?.[0];
    if (typeof address !== "string" || address === "") continue;
    const c = endpoint.conditions ?? {};
    const ready = c.ready ?? true;
    const view: SliceEndpointView = {
      address,
      conditions: { ready, serving: c.serving ?? ready, terminating: c.terminating ?? false },
    };
    if (endpoint.nodeName !== undefined) view.nodeName = endpoint.nodeName;
    if (endpoint.zone !== undefined) view.zone = endpoint.zone;
    if (endpoint.targetRef !== undefined) view.targetRef = { ...endpoint.targetRef };
    const reason = reasons.get(address);
    if (reason !== undefined) view.reason = reason;
    endpoints.push(view);
  }
  const view: SliceView = {
    swhName,
    namespace,
    nodeName,
    portName: port.name ?? "",
    port: port.port,
    protocol: port.protocol ?? "TCP",
    addressFamily,
    endpoints,
  };
  if (port.appProtocol !== undefined) view.appProtocol = port.appProtocol;
  return view;
}
