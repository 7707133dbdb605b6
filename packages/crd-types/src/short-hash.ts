/**
 * The one hash of the names this project gives Kubernetes objects and label values (slice names, the node label
 * value, the agents' heartbeat Lease names) when the readable name is longer than Kubernetes allows: the readable
 * part is cut and this hash of the full identity keeps the result unique. One implementation, so the packages that
 * write those names (`@swh/slice-writer`, `@swh/node-liveness`) cut them the same way.
 */
import { createHash } from "node:crypto";

/** First 10 hex digits of the SHA-256 of `text`: a deterministic, practically collision-free name suffix. */
export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 10);
}
