import type { V1EndpointSlice, V1Service } from "@kubernetes/client-node";
import {
  LABEL_ADDRESS_FAMILY,
  LABEL_HEADLESS,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_PORT,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_PROXY_NAME,
  MANAGED_BY,
} from "@swh/crd-types";
import { shortHash } from "@swh/crd-types/internal";
import { sliceNodeName } from "./read-slice.js";

/** Longest label value Kubernetes accepts. */
const MAX_LABEL_VALUE = 63;

/** Labels copied from the Service onto its slices (SPEC §4). */
export interface ServiceLabels {
  /** The Service is headless (`clusterIP: None`): slices carry `service.kubernetes.io/headless`. */
  headless?: boolean;
  /** Value of the Service's `service.kubernetes.io/service-proxy-name`, copied when set. */
  serviceProxyName?: string;
}

/**
 * The labels the slices of an SWH copy from its Service: headless when the Service or the SWH's spec says
 * `clusterIP: None` (the spec decides before the controller has written the Service), and the Service's
 * service-proxy-name when set, so that a kube-proxy which ignores the Service also ignores its slices.
 */
export function serviceLabelsOf(
  service: Readonly<V1Service> | undefined,
  swhSpec: { readonly clusterIP?: string | undefined },
): ServiceLabels {
  const proxy = service?.metadata?.labels?.[LABEL_SERVICE_PROXY_NAME];
  return {
    headless: service?.spec?.clusterIP === "None" || swhSpec.clusterIP === "None",
    ...(proxy ? { serviceProxyName: proxy } : {}),
  };
}

/**
 * Value of our node label for `nodeName`: the name itself when it fits a label value (63 characters), otherwise
 * a readable prefix and a hash, so every node still gets its own distinct value. It serves server-side
 * selection only; readers take the node from the slice (`readSlice`), never from this label.
 */
export function nodeLabelValue(nodeName: string): string {
  if (nodeName.length <= MAX_LABEL_VALUE) return nodeName;
  const hash = shortHash(nodeName);
  const prefix = nodeName.slice(0, MAX_LABEL_VALUE - hash.length - 1).replace(/[^a-zA-Z0-9]+$/, "");
  return `${prefix}-${hash}`;
}

/** Value of our port label: the Service port name, `_` for an unnamed port (a label value cannot be empty-named). */
function portLabelValue(portName: string): string {
  return portName === "" ? "_" : portName;
}

/**
 * Returns every label a slice of (SWH, node, Service port, address family) must carry: service-name,
 * managed-by, our node/port/address-family labels, and headless / service-proxy-name when the Service has them.
 */
export function sliceLabels(input: {
  swhName: string;
  nodeName: string;
  portName: string;
  addressFamily: string;
  serviceLabels?: ServiceLabels;
}): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_SERVICE_NAME]: input.swhName,
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_NODE]: nodeLabelValue(input.nodeName),
    [LABEL_PORT]: portLabelValue(input.portName),
    [LABEL_ADDRESS_FAMILY]: input.addressFamily,
  };
  if (input.serviceLabels?.headless === true) labels[LABEL_HEADLESS] = "";
  const proxy = input.serviceLabels?.serviceProxyName;
  if (proxy !== undefined && proxy !== "") labels[LABEL_SERVICE_PROXY_NAME] = proxy;
  return labels;
}

/** Label keys this package manages on a slice: set when desired, removed when not. */
export const MANAGED_LABEL_KEYS: readonly string[] = [
  LABEL_SERVICE_NAME,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_PORT,
  LABEL_ADDRESS_FAMILY,
  LABEL_HEADLESS,
  LABEL_SERVICE_PROXY_NAME,
];

/**
 * Label selector (string form) matching the slices the agent of `nodeName` owns, optionally only those of one
 * SWH: managed-by ours, our node label, and the service-name label.
 */
export function sliceLabelSelector(input: { nodeName: string; swhName?: string }): string {
  const parts = [`${LABEL_MANAGED_BY}=${MANAGED_BY}`, `${LABEL_NODE}=${nodeLabelValue(input.nodeName)}`];
  if (input.swhName !== undefined) parts.push(`${LABEL_SERVICE_NAME}=${input.swhName}`);
  return parts.join(",");
}

/**
 * Tells whether a slice belongs to the agent of `nodeName` (and to the SWH `swhName` when given): managed-by
 * ours, the node label of `nodeName` (what the server-side selector matched), and — the decision — the full node
 * name the slice itself carries (`sliceNodeName`: the node annotation, else its endpoints' `nodeName`) equal to
 * `nodeName`. A label alone never decides: for names over 63 characters it is a hash. Nothing else is ever
 * written or deleted.
 */
export function isOwnedSlice(
  slice: Readonly<Pick<V1EndpointSlice, "metadata" | "endpoints">>,
  owner: { nodeName: string; swhName?: string },
): boolean {
  const labels = slice.metadata?.labels ?? {};
  return (
    labels[LABEL_MANAGED_BY] === MANAGED_BY &&
    labels[LABEL_NODE] === nodeLabelValue(owner.nodeName) &&
    (owner.swhName === undefined || labels[LABEL_SERVICE_NAME] === owner.swhName) &&
    sliceNodeName(slice) === owner.nodeName
  );
}
