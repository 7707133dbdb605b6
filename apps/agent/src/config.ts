/**
 * Command-line and environment configuration of the agent (pure: argv and env in, a config or an error out).
 * Flag names follow the controller-runtime conventions operators already know from other node agents.
 */

import {
  type CertificateFiles,
  LOG_LEVELS,
  type LogLevel,
  METRICS_TLS_FLAGS,
  parseFlags,
  parseMetricsTlsFlags,
  splitHostPort,
} from "@swh/kube";

/** A host/port pair to listen on; `host` undefined means every interface. */
export interface BindAddress {
  host: string | undefined;
  port: number;
}

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

export type ParseConfigResult =
  | { ok: true; config: AgentConfig }
  | { ok: true; version: true }
  | { ok: false; error: string };

const DEFAULTS = {
  metricsBindAddress: ":8443",
  healthBindAddress: ":8081",
  logLevel: "info",
  maxConcurrentProbes: "100",
} as const;

const VALUE_FLAGS = [
  "kubeconfig",
  "metrics-bind-address",
  "health-bind-address",
  "log-level",
  "max-concurrent-probes",
  ...METRICS_TLS_FLAGS,
  "credentials-namespaces",
] as const;

// A namespace name is a DNS-1123 label.
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Parses `argv` (without the node and script paths) and `env` into an AgentConfig, or returns an error that
 * names the offending flag or variable. `--version` short-circuits everything else.
 */
export function parseAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParseConfigResult {
  const flags = parseFlags(argv, VALUE_FLAGS);
  if (!flags.ok || "version" in flags) return flags;
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
  );
  if (!metrics.ok) return metrics;
  const health = parseBindAddress(
    "--health-bind-address",
    values.get("health-bind-address") ?? DEFAULTS.healthBindAddress,
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

/** Parses `host:port`, `:port`, `[v6]:port`, or `0` (disabled). */
function parseBindAddress(
  flag: string,
  text: string,
): { ok: true; address: BindAddress | undefined } | { ok: false; error: string } {
  if (text === "0") return { ok: true, address: undefined };
  const address = splitHostPort(text);
  if (address === undefined) {
    return { ok: false, error: `${flag} must be host:port, :port or 0 (disabled), got "${text}"` };
  }
  return { ok: true, address: { host: address.host || undefined, port: address.port } };
}

function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}
