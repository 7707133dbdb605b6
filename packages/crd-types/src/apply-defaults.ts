/**
 * `applyDefaults` — what the API server stores for a spec, computed without an API server.
 */
import { defaultBySchema } from "./internal/default-by-schema.js";
import { specSchema } from "./schema.js";
import type { DefaultedServiceWithHealthchecksSpec, ServiceWithHealthchecksSpec } from "./types.js";

/**
 * Returns a new spec with every schema default applied exactly as the API server's structural defaulting does
 * (type ClusterIP, port protocol TCP, healthcheck timing, probe thresholds, HTTP path/scheme/method, PostgreSQL
 * query, …); never mutates `spec`. Unknown fields are kept (the API server would prune them).
 */
export function applyDefaults(
  spec: Readonly<ServiceWithHealthchecksSpec>,
): DefaultedServiceWithHealthchecksSpec {
  return defaultBySchema(spec, specSchema) as DefaultedServiceWithHealthchecksSpec;
}
