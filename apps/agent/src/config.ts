/**
 * Command-line and environment configuration of the agent (pure: argv and env in, a config or an error out).
 * Flag names follow the controller-runtime conventions operators already know from other node agents.
 */

import { LOG_LEVELS, type LogLevel } from "@swh/kube";

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
  /** Undefined when disabled with `0`. */
  metricsBindAddress: BindAddress | undefined;
  healthBindAddress: BindAddress | undefined;
  logLevel: LogLevel;
  maxConcurrentProbes: number;
}

export type ParseConfigResult =
  | { ok: true; config: AgentConfig }
  | { ok: true; version: true }
  | { ok: false; error: string };

const DEFAULTS = {
  metricsBindAddress: "127.0.0.1:8080",
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
] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];

/**
 * Parses `argv` (without the node and script paths) and `env` into an AgentConfig, or returns an error that
 * names the offending flag or variable. `--version` short-circuits everything else.
 */
export function parseAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParseConfigResult {
  const values = new Map<ValueFlag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--version") return { ok: true, version: true };
    if (!arg.startsWith("--")) return { ok: false, error: `unexpected argument "${arg}"` };
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!isValueFlag(name)) return { ok: false, error: `unknown flag --${name}` };
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) return { ok: false, error: `flag --${name} needs a value` };
    values.set(name, value);
  }

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

  const logLevel = values.get("log-level") ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) {
    return { ok: false, error: `--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"` };
  }

  const maxText = values.get("max-concurrent-probes") ?? DEFAULTS.maxConcurrentProbes;
  const maxConcurrentProbes = Number(maxText);
  if (!/^\d+$/.test(maxText) || maxConcurrentProbes < 1 || maxConcurrentProbes > 100_000) {
    return { ok: false, error: `--max-concurrent-probes must be an integer 1..100000, got "${maxText}"` };
  }

  return {
    ok: true,
    config: {
      nodeName,
      namespace,
      kubeconfig: values.get("kubeconfig") || undefined,
      metricsBindAddress: metrics.address,
      healthBindAddress: health.address,
      logLevel,
      maxConcurrentProbes,
    },
  };
}

/** Parses `host:port`, `:port`, `[v6]:port`, or `0` (disabled). */
function parseBindAddress(
  flag: string,
  text: string,
): { ok: true; address: BindAddress | undefined } | { ok: false; error: string } {
  if (text === "0") return { ok: true, address: undefined };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    return { ok: false, error: `${flag} must be host:port, :port or 0 (disabled), got "${text}"` };
  }
  const host = match[1] ?? match[2];
  return { ok: true, address: { host: host ? host : undefined, port } };
}

function isValueFlag(name: string): name is ValueFlag {
  return (VALUE_FLAGS as readonly string[]).includes(name);
}

function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}
