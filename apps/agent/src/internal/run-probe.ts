import type { ProbeTarget } from "@swh/aggregation";
import { type ProbeFailureReason, readPostgresCredentials } from "@swh/crd-types";
import type { ProbeResult, probeBySpec } from "@swh/probes";
import type { CredentialsLookup } from "./credentials-secrets.js";

/**
 * A probe result as the agent publishes it: the probe engine's reasons plus the agent's own (credentials). That
 * `deps.probe`'s results are assignable to it checks, at compile time, that every `ProbeReason` of `@swh/probes`
 * is a `ProbeFailureReason` slices and status may carry.
 */
export type AgentProbeResult = ProbeResult<ProbeFailureReason>;

/** What `runProbe` needs: the probe engine and a read of the credentials Secret caches. */
export interface RunProbeDeps {
  probe: typeof probeBySpec;
  credentials(namespace: string, name: string): CredentialsLookup;
}

/**
 * Runs one probe of `target` at its pod address. PostgreSQL credentials are read from the Secret cache at
 * each probe, so a Secret created or fixed later is picked up without restarting anything; a missing or invalid
 * Secret makes the probe fail with `CredentialsMissing`/`CredentialsInvalid`, and a Secret in a namespace the agent
 * may not read (ADR 0020) with `CredentialsNotPermitted` (the probe is never skipped: fail closed).
 */
export async function runProbe(
  target: ProbeTarget,
  signal: AbortSignal,
  deps: RunProbeDeps,
): Promise<AgentProbeResult> {
  const address = { host: target.address, port: target.port };
  if (target.probe.mode !== "PostgreSQL") return deps.probe(address, target.probe, { signal });
  const secretName = target.probe.postgreSQL?.authSecretName;
  if (!secretName) {
    return {
      ok: false,
      reason: "CredentialsMissing",
      message: "postgreSQL.authSecretName is not set",
      durationMs: 0,
    };
  }
  const ref = { namespace: target.namespace, name: secretName };
  const lookup = deps.credentials(ref.namespace, ref.name);
  if (!lookup.permitted) {
    return { ok: false, reason: "CredentialsNotPermitted", message: lookup.message, durationMs: 0 };
  }
  const read = readPostgresCredentials(lookup.secret, ref);
  if (!read.ok) return { ok: false, reason: read.reason, message: read.message, durationMs: 0 };
  return deps.probe(address, target.probe, { signal, postgresCredentials: read.credentials });
}
