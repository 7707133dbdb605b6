/**
 * The flags both apps take for their Kubernetes client and ops servers — `--kubeconfig`, `--metrics-bind-address`
 * with the metrics certificate, `--health-bind-address`, `--log-level` — specified once for `--help` and read
 * once into the options `startOpsServers` and `createLogger` take. Pure: values in, a config or an error naming
 * the flag out.
 */
import type { FlagEnv, FlagSpecs, FlagValues } from "@swh/flags";
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

/** The ops flags' specs, for an app's flag table (`readFlags`) and `--help`. */
export function opsFlags(opts: OpsFlagsOptions) {
  const port0 = opts.disableWithZero ? "0 disables" : "port 0 a free port";
  const address = (port: number) => ({
    value: "HOST:PORT",
    default: `:${port}`,
    read: (given: string | undefined, flag: string) => {
      const read = parseBindAddress(flag, given ?? `:${port}`, opts);
      return read.ok ? { ok: true as const, value: read.address } : read;
    },
  });
  return {
    kubeconfig: {
      value: "PATH",
      default: "in-cluster service account, then $KUBECONFIG",
      help: "kubeconfig file",
      read: (given: string | undefined) => ({ ok: true as const, value: given || undefined }),
    },
    "metrics-bind-address": {
      ...address(opts.metricsPort),
      help: `Prometheus /metrics over HTTPS, for bearer tokens allowed get on /metrics (TokenReview + SubjectAccessReview); :PORT every interface, ${port0}`,
    },
    ...METRICS_TLS_FLAGS,
    "health-bind-address": {
      ...address(opts.healthPort),
      help: `/healthz and /readyz only, no authentication; :PORT every interface, ${port0}`,
    },
    "log-level": {
      value: "LEVEL",
      default: "info, or $LOG_LEVEL",
      help: LOG_LEVELS.join(" | "),
      read: (given: string | undefined, flag: string, env: FlagEnv) => {
        const text = given ?? env.LOG_LEVEL ?? "info";
        try {
          return { ok: true as const, value: parseLogLevel(text) };
        } catch {
          return {
            ok: false as const,
            error: `${flag} must be one of ${LOG_LEVELS.join(", ")}, got "${text}"`,
          };
        }
      },
    },
  } as const satisfies FlagSpecs;
}

/** The ops flags' values as `readFlags` returns them. */
export type OpsFlagValues = FlagValues<ReturnType<typeof opsFlags>>;

/** The ops config from the ops flags' `values`; the certificate flags are checked as a pair. */
export function opsConfigOf(
  values: OpsFlagValues,
): { ok: true; ops: OpsConfig } | { ok: false; error: string } {
  const tls = parseMetricsTlsFlags(values["metrics-tls-cert-file"], values["metrics-tls-private-key-file"]);
  if (!tls.ok) return tls;
  const ops: OpsConfig = {
    kubeconfig: values.kubeconfig,
    metricsBindAddress: values["metrics-bind-address"],
    metricsTls: tls.files,
    healthBindAddress: values["health-bind-address"],
    logLevel: values["log-level"],
  };
  return { ok: true, ops };
}
