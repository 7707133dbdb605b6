/**
 * `boundedTimeoutSeconds` — the probe timeout the agent runs with, under the same bounds as the schema.
 */
import { MAX_TIMEOUT_SECONDS } from "./internal/schema-healthcheck.js";

/**
 * Returns `timeoutSeconds` within the bounds the schema enforces: at most `periodSeconds` and at most
 * `MAX_TIMEOUT_SECONDS` (and at least 1). For an object the API server accepts today it is `timeoutSeconds`
 * itself; an object stored before the bounds existed is kept as it is (validation ratcheting), so the agent
 * bounds its timeout at run time with this function (ADR 0016).
 */
export function boundedTimeoutSeconds(timeoutSeconds: number, periodSeconds: number): number {
  return Math.max(1, Math.min(timeoutSeconds, periodSeconds, MAX_TIMEOUT_SECONDS));
}
