import type { V1Secret } from "@kubernetes/client-node";
import type { ProbeTarget } from "@swh/aggregation";
import type { ProbeResult, probeBySpec } from "@swh/probes";
import { readPostgresCredentials } from "./postgres-credentials.js";

/** What `runProbe` needs: the probe engine and a read of the credentials Secret cache. */
export interface RunProbeDeps {
  probe: typeof probeBySpec;
  secret(namespace: string, name: string): Readonly<V1Secret> | undefined;
}

/**
 * Runs one probe of `target` at its pod address. PostgreSQL credentials are read from the Secret cache at
 * each probe, so a Secret created or fixed later is picked up without restarting anything; a missing or invalid
 * Secret makes the probe fail with `CredentialsMissing`/`CredentialsInvalid` (the probe is never skipped).
 */
export async function runProbe(
  target: ProbeTarget,
  signal: AbortSignal,
  deps: RunProbeDeps,
): Promise<ProbeResult> {
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
  const read = readPostgresCredentials(deps.secret(ref.namespace, ref.name), ref);
  if (!read.ok) return { ok: false, reason: read.reason, message: read.message, durationMs: 0 };
  return deps.probe(address, target.probe, { signal, postgresCredentials: read.credentials });
}
