/**
 * The flags both apps take for their Kubernetes client and ops servers — `--kubeconfig`, `--metrics-bind-address`
 * with the metrics certificate, `--health-bind-address`, `--log-level` — specified once for `--help` and read
 * once into the options `startOpsServers` and `createLogger` take. Pure: values in, a config or an error naming
 * the flag out.
 */
import type { FlagSpecs } from "@swh/flags";
import { type BindAddress, parseBindAddress } from "./bind-address.js";
import { LOG_LEVELS, type LogLevel, parseLogLevel } from "./logger.js";
import { METRICS_TLS_FLAGS, parseMetricsTlsFlags } from "./metrics-tls-flags.js";
import type { CertificateFiles } from "./serving-certificate.js";

/** How an app's ops flags behave: the default ports, and whether `0` turns a server off. */
export interface OpsFlagsOptions {
  metricsPort: number;
  healthPort: number;
  /** `0` means "do not serve" (the agent); otherwise a server always runs and port 0 is any free port. */
  disableWithZero: boolean;
}

/** What the ops flags configure; an address is undefined only when `0` turned its server off. */
export interface OpsConfig {
  kubeconfig: string | undefined;
  metricsBindAddress: BindAddress | undefined;
  /** Serving certificate of /metrics; undefined: self-signed at start-up. */
  metricsTls: CertificateFiles | undefined;
  healthBindAddress: BindAddress | undefined;
  logLevel: LogLevel;
}

/** The ops flags' specs, for an app's flag table and `--help`. */
export function opsFlags(opts: OpsFlagsOptions) {
  const port0 = opts.disableWithZero ? "0 disables" : "port 0 a free port";
  return {
    kubeconfig: {
      value: "PATH",
      default: "in-cluster service account, then $KUBECONFIG",
      help: "kubeconfig file",
    },
    "metrics-bind-address": {
      value: "HOST:PORT",
      default: `:${opts.metricsPort}`,
      help: `Prometheus /metrics over HTTPS, for bearer tokens allowed get on /metrics (TokenReview + SubjectAccessReview); :PORT every interface, ${port0}`,
    },
    ...METRICS_TLS_FLAGS,
    "health-bind-address": {
      value: "HOST:PORT",
      default: `:${opts.healthPort}`,
      help: `/healthz and /readyz only, no authentication; :PORT every interface, ${port0}`,
    },
    "log-level": { value: "LEVEL", default: "info, or $LOG_LEVEL", help: LOG_LEVELS.join(" | ") },
  } as const satisfies FlagSpecs;
}

/** Reads the ops flags from parsed flag `values` (`env`: the `LOG_LEVEL` fallback). */
export function parseOpsFlags(
  values: ReadonlyMap<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  opts: OpsFlagsOptions,
): { ok: true; ops: OpsConfig } | { ok: false; error: string } {
  const zero = { disableWithZero: opts.disableWithZero };
  const metricsText = values.get("metrics-bind-address") ?? `:${opts.metricsPort}`;
  const metrics = parseBindAddress("--metrics-bind-address", metricsText, zero);
  if (!metrics.ok) return metrics;
  const health = parseBindAddress(
    "--health-bind-address",
    values.get("health-bind-address") ?? `:${opts.healthPort}`,
    zero,
  );
  if (!health.ok) return health;
  const tls = parseMetricsTlsFlags(values);
  if (!tls.ok) return tls;
  const logText = values.get("log-level") ?? env.LOG_LEVEL ?? "info";
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(logText);
  } catch {
    return { ok: false, error: `--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${logText}"` };
  }
  const ops: OpsConfig = {
    kubeconfig: values.get("kubeconfig") || undefined,
    metricsBindAddress: metrics.address,
    metricsTls: tls.files,
    healthBindAddress: health.address,
    logLevel,
  };
  return { ok: true, ops };
}
