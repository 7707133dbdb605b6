/**
 * How an agent tells the controller why endpoints are not serving. A slice carries one port, so the agent puts
 * one JSON annotation on it: `{ "<address>": { "probe": "<which probe>", "reason": "<code>", "message": "..." } }`
 * listing only the addresses failing a probe of that port. The key and its contract live in `@swh/crd-types`
 * (`ANNOTATION_ENDPOINT_REASONS`), shared with the agent that writes it.
 */
import { ANNOTATION_ENDPOINT_REASONS } from "@swh/crd-types";

export { ANNOTATION_ENDPOINT_REASONS };

/** Why one endpoint address of one slice is not serving. */
export interface EndpointReason {
  probe?: string;
  reason: string;
  message?: string;
}

/**
 * Reads the reasons annotation of a slice into a map by address. A missing or malformed annotation (or a
 * malformed entry) yields no reasons rather than an error: reasons are informative, endpoint conditions decide.
 */
export function parseEndpointReasons(
  annotations: Readonly<Record<string, string>> | undefined,
): Map<string, EndpointReason> {
  const out = new Map<string, EndpointReason>();
  const raw = annotations?.[ANNOTATION_ENDPOINT_REASONS];
  if (raw === undefined) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return out;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return out;
  for (const [address, entry] of Object.entries(parsed)) {
    if (typeof entry !== "object" || entry === null) continue;
    const { probe, reason, message } = entry as Record<string, unknown>;
    if (typeof reason !== "string" || reason === "") continue;
    const item: EndpointReason = { reason };
    if (typeof probe === "string") item.probe = probe;
    if (typeof message === "string") item.message = message;
    out.set(address, item);
  }
  return out;
}

/** Serializes reasons the way `parseEndpointReasons` reads them (for agents and tests). */
export function formatEndpointReasons(reasons: ReadonlyMap<string, EndpointReason>): string {
  const out: Record<string, EndpointReason> = {};
  for (const address of [...reasons.keys()].sort()) {
    const reason = reasons.get(address);
    if (reason !== undefined) out[address] = reason;
  }
  return JSON.stringify(out);
}
