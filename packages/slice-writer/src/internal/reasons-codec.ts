/**
 * The one codec of the endpoint-reasons annotation (`ANNOTATION_ENDPOINT_REASONS`, ADR 0006): a JSON object keyed
 * by address, `{ "<address>": { "probe", "reason", "message", "target" } }`, addresses in code-unit order so the
 * same reasons always give the same text (and no write). The planner writes it, `readSlice` reads it.
 */

/** Why one endpoint address of a slice does not serve: the first failing probe of the slice's port. */
export interface EndpointReason {
  /** A reason code such as `ConnectionRefused` (a `ProbeFailureReason`), or `NotProbedYet`. */
  reason: string;
  /** Human-readable probe, e.g. `HTTP :8080 /healthz`. */
  probe?: string;
  message?: string;
  /** Probe target id: lets a restarted agent start from the published failure. */
  target?: string;
}

/** The annotation value for `reasons` (by address); undefined when there is none (no annotation then). */
export function formatReasons(reasons: ReadonlyMap<string, EndpointReason>): string | undefined {
  if (reasons.size === 0) return undefined;
  const out: Record<string, EndpointReason> = {};
  for (const address of [...reasons.keys()].sort(compare)) {
    const { probe, reason, message, target } = reasons.get(address) as EndpointReason;
    // Fixed key order: the text is compared to decide whether a slice must be written.
    const entry: Record<string, string> = {};
    if (probe !== undefined) entry.probe = probe;
    entry.reason = reason;
    if (message !== undefined) entry.message = message;
    if (target !== undefined) entry.target = target;
    out[address] = entry as unknown as EndpointReason;
  }
  return JSON.stringify(out);
}

/**
 * Reads an annotation value back by address. Malformed input is normal (hand edits, older writers) and never
 * throws: a value that is not a JSON object reads as no reasons, an entry without a non-empty string `reason` is
 * skipped, and fields that are not strings (or unknown keys) are ignored.
 */
export function parseReasons(raw: string | undefined): Map<string, EndpointReason> {
  const out = new Map<string, EndpointReason>();
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
    const { probe, reason, message, target } = entry as Record<string, unknown>;
    if (typeof reason !== "string" || reason === "") continue;
    const item: EndpointReason = { reason };
    if (typeof probe === "string") item.probe = probe;
    if (typeof message === "string") item.message = message;
    if (typeof target === "string") item.target = target;
    out.set(address, item);
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
