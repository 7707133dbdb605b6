/**
 * Command-line and environment configuration of the agent (pure: argv and env in, a config or an error out).
 * Flag names follow the controller-runtime conventions operators already know from other node agents.
 */

import { formatUsage, integerFlag, nameSetFlag, type ParseResult, readFlags } from "@swh/flags";
import { type BindAddress, type OpsConfig, opsConfigOf, opsFlags } from "@swh/kube";

export type { BindAddress };

/** Everything `main` needs to start the agent: the ops flags (`0` turns a server off) and its own. */
export interface AgentConfig extends OpsConfig {
  nodeName: string;
  /** Namespace the agent runs in (heartbeat Lease lives there); undefined disables the heartbeat. */
  namespace: string | undefined;
  maxConcurrentProbes: number;
  /**
   * Namespaces whose credentials Secrets the agent may read (ADR 0020), sorted and without duplicates; empty
   * means no Secret access at all. The chart passes the same list it grants RoleBindings in.
   */
  credentialsNamespaces: readonly string[];
}

/** The agent's config, `--help`, `--version`, or an error naming the flag or variable. */
export type ParseConfigResult = ParseResult<AgentConfig>;

const FLAGS = {
  ...opsFlags({ metricsPort: 8443, healthPort: 8081, disableWithZero: true }),
  "max-concurrent-probes": integerFlag({
    value: "N",
    fallback: 100,
    min: 1,
    max: 100_000,
    help: "probes running at once on this node",
  }),
  "credentials-namespaces": nameSetFlag({
    value: "NS,...",
    default: "none: no Secret access",
    help: "namespaces whose PostgreSQL credentials Secrets the agent may read",
    // A namespace name is a DNS-1123 label.
    pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    what: "namespace names",
  }),
} as const;

/** The `--help` text: every flag with its default. */
export const USAGE = formatUsage(
  `swh-agent — probes the pods of its node and publishes their per-port readiness as EndpointSlices

Environment: NODE_NAME (required, from spec.nodeName), POD_NAMESPACE (the heartbeat Lease's namespace).`,
  FLAGS,
);

/**
 * Parses `argv` (without the node and script paths) and `env` into an AgentConfig, or returns an error that
 * names the offending flag or variable. `--help` and `--version` short-circuit everything else.
 */
export function parseAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParseConfigResult {
  const flags = readFlags(argv, FLAGS, env);
  if (!flags.ok || !("values" in flags)) return flags;
  const nodeName = env.NODE_NAME?.trim();
  if (!nodeName) {
    return {
      ok: false,
      error: "NODE_NAME is required: set it from the downward API (spec.nodeName) in the DaemonSet",
    };
  }
  const ops = opsConfigOf(flags.values);
  if (!ops.ok) return ops;
  return {
    ok: true,
    config: {
      ...ops.ops,
      nodeName,
      namespace: env.POD_NAMESPACE?.trim() || undefined,
      maxConcurrentProbes: flags.values["max-concurrent-probes"],
      credentialsNamespaces: flags.values["credentials-namespaces"],
    },
  };
}
