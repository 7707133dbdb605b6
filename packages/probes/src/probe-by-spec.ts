/** Runs the probe a `ProbeSpec` describes — the glue between the resource's shape and the four probes. */
import { PROBE_MODES, type ProbeSpec } from "@swh/crd-types";
import { describeValue } from "@swh/crd-types/internal";
import { probeGrpc } from "./probe-grpc.js";
import { probeHttp } from "./probe-http.js";
import { type PostgresCredentials, probePostgres } from "./probe-postgres.js";
import { type ProbeAddress, ProbeConfigError, type ProbeResult } from "./probe-result.js";
import { probeTcp } from "./probe-tcp.js";

/**
 * Probes `target` (an IP address and the already resolved port) as `spec` says, with `spec.timeoutSeconds`
 * (default 1) as the deadline. PostgreSQL needs `postgresCredentials`: finding them (a Secret, a file) is the
 * caller's business, and so is the failure it reports when it has none; without them this throws
 * `ProbeConfigError` like any other missing setting. A mode other than TCP, HTTP, PostgreSQL or GRPC is
 * an `UnsupportedMode` failure, never an exception (fail closed).
 */
export function probeBySpec(
  target: ProbeAddress,
  spec: ProbeSpec,
  opts: { signal?: AbortSignal; postgresCredentials?: PostgresCredentials } = {},
): Promise<ProbeResult> {
  const timeoutMs = (spec.timeoutSeconds ?? 1) * 1000;
  const probeOpts = opts.signal ? { timeoutMs, signal: opts.signal } : { timeoutMs };
  switch (spec.mode) {
    case "TCP": {
      const { targetPort: _port, ...config } = spec.tcp ?? {};
      return probeTcp(target, config, probeOpts);
    }
    case "HTTP": {
      if (!spec.http) throw new ProbeConfigError("http", "is required when mode is HTTP");
      const { targetPort: _port, ...config } = spec.http;
      return probeHttp(target, config, probeOpts);
    }
    case "PostgreSQL": {
      if (!spec.postgreSQL) throw new ProbeConfigError("postgreSQL", "is required when mode is PostgreSQL");
      if (!opts.postgresCredentials)
        throw new ProbeConfigError("postgresCredentials", "are required for a PostgreSQL probe");
      const { dbName, query } = spec.postgreSQL;
      return probePostgres(
        target,
        {
          ...(dbName !== undefined ? { dbName } : {}),
          ...(query !== undefined ? { query } : {}),
          credentials: opts.postgresCredentials,
        },
        probeOpts,
      );
    }
    case "GRPC": {
      if (!spec.grpc) throw new ProbeConfigError("grpc", "is required when mode is GRPC");
      const { targetPort: _port, ...config } = spec.grpc;
      return probeGrpc(target, config, probeOpts);
    }
    default:
      // A stored probe of a newer schema (or garbage) cannot run here: it fails, it is never skipped.
      return Promise.resolve({
        ok: false,
        reason: "UnsupportedMode",
        message: `mode ${describeValue(spec.mode)} is not supported (${PROBE_MODES.join(", ")}); the probe fails`,
        durationMs: 0,
      });
  }
}
