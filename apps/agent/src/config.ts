/**
 * Command-line and environment configuration of the agent (pure: argv and env in, a config or an error out).
 * Flag names follow the controller-runtime conventions operators already know from other node agents.
 */

import { type FlagSpecs, formatUsage, type ParseResult, parseFlags } from "@swh/flags";
import {
  type BindAddress,
  type CertificateFiles,
  LOG_LEVELS,
  type LogLevel,
  METRICS_TLS_FLAGS,
  parseBindAddress,
  parseMetricsTlsFlags,
} from "@swh/kube";

export type { BindAddress };

/** Everything `main` needs to start the agent. */
export interface AgentConfig {
  nodeName: string;
  /** Namespace the agent runs in (heartbeat Lease lives there); undefined disables the heartbeat. */
  namespace: string | undefined;
  kubeconfig: string | undefined;
  /** HTTPS /metrics for authorised bearer tokens; undefined when disabled with `0`. */
  metricsBindAddress: BindAddress | undefined;
  /** Serving certificate of /metrics; undefined: self-signed at start-up. */
  metricsTls: CertificateFiles | undefined;
  healthBindAddress: BindAddress | undefined;
  logLevel: LogLevel;
  maxConcurrentProbes: number;
  /**
   * Namespaces whose credentials Secrets the agent may read (ADR 0020), sorted and without duplicates; empty
   * means no Secret access at all. The chart passes the same list it grants RoleBindings in.
   */
  credentialsNamespaces: string[];
}

/** The agent's config, `--help`, `--version`, or an error naming the flag or variable. */
export type ParseConfigResult = ParseResult<AgentConfig>;

const DEFAULTS = {
  metricsBindAddress: ":8443",
  healthBindAddress: ":8081",
  logLevel: "info",
  maxConcurrentProbes: "100",
} as const;

const FLAGS = {
  kubeconfig: {
    value: "PATH",
    default: "in-cluster service account, then $KUBECONFIG",
    help: "kubeconfig file",
  },
  "metrics-bind-address": {
    value: "HOST:PORT",
    default: DEFAULTS.metricsBindAddress,
    help: "Prometheus /metrics over HTTPS for authorised bearer tokens; :PORT every interface, 0 disables",
  },
  ...METRICS_TLS_FLAGS,
  "health-bind-address": {
    value: "HOST:PORT",
    default: DEFAULTS.healthBindAddress,
    help: "/healthz and /readyz, no authentication; :PORT every interface, 0 disables",
  },
  "log-level": { value: "LEVEL", default: DEFAULTS.logLevel, help: LOG_LEVELS.join(" | ") },
  "max-concurrent-probes": {
    value: "N",
    default: DEFAULTS.maxConcurrentProbes,
    help: "probes running at once on this node, 1..100000",
  },
  "credentials-namespaces": {
    value: "NS,...",
    default: "none: no Secret access",
    help: "namespaces whose PostgreSQL credentials Secrets the agent may read",
  },
} as const satisfies FlagSpecs;

/** The `--help` text: every flag with its default. */
export const USAGE = formatUsage(
  `swh-agent — probes the pods of its node and publishes their per-port readiness as EndpointSlices

Environment: NODE_NAME (required, from spec.nodeName), POD_NAMESPACE (the heartbeat Lease's namespace).`,
  FLAGS,
);

// A namespace name is a DNS-1123 label.
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Parses `argv` (without the node and script paths) and `env` into an AgentConfig, or returns an error that
 * names the offending flag or variable. `--help` and `--version` short-circuit everything else.
 */
export function parseAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParseConfigResult {
  const flags = parseFlags(argv, FLAGS);
  if (!flags.ok || !("values" in flags)) return flags;
  const values = flags.values;

  const nodeName = env.NODE_NAME?.trim();
  if (!nodeName) {
    return {
      ok: false,
      error: "NODE_NAME is required: set it from the downward API (spec.nodeName) in the DaemonSet",
    };
  }
  const namespace = env.POD_NAMESPACE?.trim() || undefined;

  const metrics = parseBindAddress(
    "--metrics-bind-address",
    values.get("metrics-bind-address") ?? DEFAULTS.metricsBindAddress,
    { disableWithZero: true },
  );
  if (!metrics.ok) return metrics;
  const health = parseBindAddress(
    "--health-bind-address",
    values.get("health-bind-address") ?? DEFAULTS.healthBindAddress,
    { disableWithZero: true },
  );
  if (!health.ok) return health;
  const tls = parseMetricsTlsFlags(values);
  if (!tls.ok) return tls;

  const logLevel = values.get("log-level") ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) {
    return { ok: false, error: `--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"` };
  }

  const maxText = values.get("max-concurrent-probes") ?? DEFAULTS.maxConcurrentProbes;
  const maxConcurrentProbes = Number(maxText);
  if (!/^\d+$/.test(maxText) || maxConcurrentProbes < 1 || maxConcurrentProbes > 100_000) {
    return { ok: false, error: `--max-concurrent-probes must be an integer 1..100000, got "${maxText}"` };
  }

  const credentials = parseNamespaceList(
    "--credentials-namespaces",
    values.get("credentials-namespaces") ?? "",
  );
  if (!credentials.ok) return credentials;

  return {
    ok: true,
    config: {
      nodeName,
      namespace,
      kubeconfig: values.get("kubeconfig") || undefined,
      metricsBindAddress: metrics.address,
      metricsTls: tls.files,
      healthBindAddress: health.address,
      logLevel,
      maxConcurrentProbes,
      credentialsNamespaces: credentials.namespaces,
    },
  };
}

/** Parses a comma-separated list of namespace names (blanks around commas and empty items ignored). */
function parseNamespaceList(
  flag: string,
  text: string,
): { ok: true; namespaces: string[] } | { ok: false; error: string } {
  const names = text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  const bad = names.find((n) => !NAMESPACE_NAME.test(n));
  if (bad !== undefined) {
    return { ok: false, error: `${flag} must list namespace names separated by commas, got "${bad}"` };
  }
  return { ok: true, namespaces: [...new Set(names)].sort() };
}

function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}
