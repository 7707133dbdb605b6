import { shortHash } from "@swh/crd-types/internal";

/** Longest object name Kubernetes accepts (DNS subdomain). */
export const MAX_SLICE_NAME_LENGTH = 253;

/** What identifies a family of slices: one (SWH, node, Service port, resolved port, protocol, address family). */
export interface SliceKey {
  portName: string;
  port: number;
  protocol: string;
  addressFamily: string;
}

/**
 * Returns the name of the `index`-th slice (0-based) of one (SWH, node, slice key): a readable prefix
 * `<swh>-<node>-<port name or number>-<v4|v6>`, a hash of the exact identity (so names whose parts contain dashes
 * cannot collide), and `-<index>` after the first. Deterministic, a valid DNS subdomain, at most 253 characters
 * (the readable prefix is cut first; the hash keeps it unique).
 */
export function sliceName(input: {
  swhName: string;
  nodeName: string;
  key: SliceKey;
  index: number;
}): string {
  const { swhName, nodeName, key, index } = input;
  const identity = [swhName, nodeName, key.portName, key.port, key.protocol, key.addressFamily].join(
    "\u0000",
  );
  const suffix = `-${shortHash(identity)}${index > 0 ? `-${index}` : ""}`;
  const family = key.addressFamily === "IPv6" ? "v6" : "v4";
  const readable = `${swhName}-${nodeName}-${key.portName === "" ? key.port : key.portName}-${family}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, "-");
  const prefix = readable.slice(0, MAX_SLICE_NAME_LENGTH - suffix.length).replace(/[^a-z0-9]+$/, "");
  return `${prefix}${suffix}`;
}
