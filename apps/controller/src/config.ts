/**
 * Command-line flags of the controller (env fallbacks where the Deployment passes them). Parsing is pure and
 * returns data: a bad flag yields an error naming it instead of a half-configured process.
 */
import {
  type CertificateFiles,
  type LogLevel,
  METRICS_TLS_FLAGS,
  parseFlags,
  parseLogLevel,
  parseMetricsTlsFlags,
  splitHostPort,
} from "@swh/kube";

/** Parsed configuration; see `USAGE` for each flag. */
export interface ControllerConfig {
  kubeconfig?: string;
  namespace: string;
  leaderElect: boolean;
  metricsBindAddress: { host: string; port: number };
  /** Serving certificate of /metrics; undefined: self-signed at start-up. */
  metricsTls?: CertificateFiles;
  healthBindAddress: { host: string; port: number };
  logLevel: LogLevel;
  nodeNotReadyGraceMs: number;
  identity: string;
}

export type ConfigResult =
  | { ok: true; config: ControllerConfig }
  | { ok: true; version: true }
  | { ok: false; error: string };

export const USAGE = `swh-controller — reconciles ServiceWithHealthchecks into Services and status

  --kubeconfig PATH              kubeconfig file (default: in-cluster service account, then $KUBECONFIG)
  --namespace NS                 install namespace: leader Lease and agent heartbeat Leases (default $POD_NAMESPACE)
  --leader-elect BOOL            take part in leader election before writing (default true)
  --metrics-bind-address H:P     Prometheus /metrics over HTTPS, for bearer tokens allowed get on /metrics
                                 (TokenReview + SubjectAccessReview; default :8443; port 0 picks a free port)
  --metrics-tls-cert-file PATH   PEM certificate of /metrics, reloaded when it changes (default: self-signed)
  --metrics-tls-private-key-file PATH  its PEM private key (required with --metrics-tls-cert-file)
  --health-bind-address H:P      /healthz and /readyz only, no authentication (default :8081; port 0 picks a free port)
  --log-level LEVEL              debug | info | warn | error (default info, or $LOG_LEVEL)
  --node-not-ready-grace DUR     delete a NotReady node's slices after this long (default 5m; e.g. 90s, 5m, 1h)
  --version                      print the version and exit
`;

const FLAGS = [
  "kubeconfig",
  "namespace",
  "leader-elect",
  "metrics-bind-address",
  "health-bind-address",
  "log-level",
  "node-not-ready-grace",
  ...METRICS_TLS_FLAGS,
] as const;

/** Parses `argv` (without node and script) with `env` fallbacks. */
export function parseConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  const flags = parseFlags(argv, FLAGS, ["leader-elect"]);
  if (!flags.ok || "version" in flags) return flags;
  const values = flags.values;

  const namespace = values.get("namespace") ?? env.POD_NAMESPACE ?? "";
  if (namespace === "") return { ok: false, error: "--namespace is required (or set POD_NAMESPACE)" };
  const leaderElect = parseBool(values.get("leader-elect") ?? "true");
  if (leaderElect === undefined)
    return { ok: false, error: `--leader-elect: "${values.get("leader-elect")}" is not true or false` };
  const metrics = parseBindAddress(values.get("metrics-bind-address") ?? ":8443", "--metrics-bind-address");
  if ("error" in metrics) return { ok: false, error: metrics.error };
  const health = parseBindAddress(values.get("health-bind-address") ?? ":8081", "--health-bind-address");
  if ("error" in health) return { ok: false, error: health.error };
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
    metricsBindAddress: metrics,
    healthBindAddress: health,
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

/** `host:port` or `:port` (all interfaces); `[::1]:8080` for IPv6. */
function parseBindAddress(value: string, flag: string): { host: string; port: number } | { error: string } {
  const address = splitHostPort(value);
  if (address === undefined) return { error: `${flag}: "${value}" is not host:port` };
  return { host: address.host || "0.0.0.0", port: address.port };
}

/** Go-style durations with one unit: `500ms`, `90s`, `5m`, `1h`. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * unit);
}
