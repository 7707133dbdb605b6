/**
 * Command-line flags of the controller (env fallbacks where the Deployment passes them). Parsing is pure and
 * returns data: a bad flag yields an error naming it instead of a half-configured process.
 */
import { type FlagSpecs, formatUsage, type ParseResult, parseDuration, parseFlags } from "@swh/flags";
import {
  type BindAddress,
  type CertificateFiles,
  type LogLevel,
  METRICS_TLS_FLAGS,
  parseBindAddress,
  parseLogLevel,
  parseMetricsTlsFlags,
} from "@swh/kube";

/** Parsed configuration; see `USAGE` for each flag. */
export interface ControllerConfig {
  kubeconfig?: string;
  namespace: string;
  leaderElect: boolean;
  /** `host` undefined: every interface, dual-stack where available. */
  metricsBindAddress: BindAddress;
  /** Serving certificate of /metrics; undefined: self-signed at start-up. */
  metricsTls?: CertificateFiles;
  healthBindAddress: BindAddress;
  logLevel: LogLevel;
  nodeNotReadyGraceMs: number;
  identity: string;
}

/** The controller's config, `--help`, `--version`, or an error naming the flag. */
export type ConfigResult = ParseResult<ControllerConfig>;

const FLAGS = {
  kubeconfig: {
    value: "PATH",
    default: "in-cluster service account, then $KUBECONFIG",
    help: "kubeconfig file",
  },
  namespace: {
    value: "NS",
    default: "$POD_NAMESPACE",
    help: "install namespace: leader Lease and agent heartbeat Leases",
  },
  "leader-elect": {
    type: "boolean",
    default: "true",
    help: "take part in leader election before writing",
  },
  "metrics-bind-address": {
    value: "HOST:PORT",
    default: ":8443",
    help: "Prometheus /metrics over HTTPS, for bearer tokens allowed get on /metrics (TokenReview + SubjectAccessReview); :PORT every interface, port 0 a free port",
  },
  ...METRICS_TLS_FLAGS,
  "health-bind-address": {
    value: "HOST:PORT",
    default: ":8081",
    help: "/healthz and /readyz only, no authentication; :PORT every interface, port 0 a free port",
  },
  "log-level": { value: "LEVEL", default: "info, or $LOG_LEVEL", help: "debug | info | warn | error" },
  "node-not-ready-grace": {
    value: "DUR",
    default: "5m",
    help: "delete a NotReady node's slices after this long (e.g. 90s, 5m, 1h)",
  },
} as const satisfies FlagSpecs;

/** The `--help` text: every flag with its default. */
export const USAGE = formatUsage(
  "swh-controller — reconciles ServiceWithHealthchecks into Services and status",
  FLAGS,
);

/** Parses `argv` (without node and script) with `env` fallbacks. */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  const flags = parseFlags(argv, FLAGS);
  if (!flags.ok || !("values" in flags)) return flags;
  const values = flags.values;

  const namespace = values.get("namespace") ?? env.POD_NAMESPACE ?? "";
  if (namespace === "") return { ok: false, error: "--namespace is required (or set POD_NAMESPACE)" };
  const leaderElect = parseBool(values.get("leader-elect") ?? "true");
  if (leaderElect === undefined)
    return { ok: false, error: `--leader-elect: "${values.get("leader-elect")}" is not true or false` };
  const metrics = parseBindAddress(
    "--metrics-bind-address",
    values.get("metrics-bind-address") ?? FLAGS["metrics-bind-address"].default,
  );
  if (!metrics.ok) return metrics;
  const health = parseBindAddress(
    "--health-bind-address",
    values.get("health-bind-address") ?? FLAGS["health-bind-address"].default,
  );
  if (!health.ok) return health;
  const tls = parseMetricsTlsFlags(values);
  if (!tls.ok) return tls;
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(values.get("log-level") ?? env.LOG_LEVEL ?? "info");
  } catch (err) {
    return { ok: false, error: `--${(err as Error).message}` };
  }
  const grace = parseDuration(values.get("node-not-ready-grace") ?? "5m");
  if (grace === undefined) {
    return {
      ok: false,
      error: `--node-not-ready-grace: "${values.get("node-not-ready-grace")}" is not a duration like 90s, 5m or 1h`,
    };
  }

  const config: ControllerConfig = {
    namespace,
    leaderElect,
    // Both parsed without `disableWithZero`: the controller always serves them.
    metricsBindAddress: metrics.address as BindAddress,
    healthBindAddress: health.address as BindAddress,
    logLevel,
    nodeNotReadyGraceMs: grace,
    identity: env.POD_NAME || `swh-controller-${process.pid}`,
  };
  if (tls.files !== undefined) config.metricsTls = tls.files;
  const kubeconfig = values.get("kubeconfig");
  if (kubeconfig !== undefined && kubeconfig !== "") config.kubeconfig = kubeconfig;
  return { ok: true, config };
}

function parseBool(value: string): boolean | undefined {
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}
