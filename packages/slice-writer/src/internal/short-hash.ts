import { createHash } from "node:crypto";

/** First 10 hex digits of the SHA-256 of `text`: a deterministic, practically collision-free name suffix. */
export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 10);
}
