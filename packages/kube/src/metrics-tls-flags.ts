/**
 * The metrics server's certificate flags, the same in both apps: their specs for `--help` and the reading of
 * their values into the files `startMetricsServer` loads.
 */
import type { FlagSpecs } from "@swh/flags";

/** The flags both apps take for the metrics server's certificate (PEM files, e.g. from a mounted TLS Secret). */
export const METRICS_TLS_FLAGS = {
  "metrics-tls-cert-file": {
    value: "PATH",
    default: "a self-signed certificate",
    help: "PEM certificate of /metrics, reloaded when it changes",
  },
  "metrics-tls-private-key-file": {
    value: "PATH",
    default: "none; required with --metrics-tls-cert-file",
    help: "PEM private key of that certificate",
  },
} as const satisfies FlagSpecs;

/**
 * Reads `--metrics-tls-cert-file` and `--metrics-tls-private-key-file` (the text given, undefined when not): both
 * (files) or neither (undefined: a self-signed certificate); one without the other is an error naming the missing
 * flag.
 */
export function parseMetricsTlsFlags(
  cert: string | undefined,
  key: string | undefined,
): { ok: true; files: { certFile: string; keyFile: string } | undefined } | { ok: false; error: string } {
  const certFile = cert || undefined;
  const keyFile = key || undefined;
  if (certFile === undefined && keyFile === undefined) return { ok: true, files: undefined };
  if (certFile === undefined)
    return { ok: false, error: "--metrics-tls-cert-file is required with --metrics-tls-private-key-file" };
  if (keyFile === undefined)
    return { ok: false, error: "--metrics-tls-private-key-file is required with --metrics-tls-cert-file" };
  return { ok: true, files: { certFile, keyFile } };
}
