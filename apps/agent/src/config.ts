/**
 * Command-line and environment configuration of the agent (pure: argv and env in, a config or an error out).
 * Flag names follow the controller-runtime conventions operators already know from other node agents.
 */

import {
  type FlagSpecs,
  formatUsage,
  type ParseResult,
  parseFlags,
  parseIntegerFlag,
  parseNameSetFlag,
} from "@swh/flags";
import { type BindAddress, type OpsConfig, opsFlags, parseOpsFlags } from "@swh/kube";

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

const OPS = { metricsPort: 8443, healthPort: 8081, disableWithZero: true } as const;

const FLAGS = {
  ...opsFlags(OPS),
  "max-concurrent-probes": {
    value: "N",
    default: "100",
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

  const ops = parseOpsFlags(values, env, OPS);
  if (!ops.ok) return ops;

  const max = parseIntegerFlag("--max-concurrent-probes", values.get("max-concurrent-probes") ?? "100", {
    min: 1,
    max: 100_000,
  });
  if (!max.ok) return max;
  const credentials = parseNameSetFlag(
    "--credentials-namespaces",
    values.get("credentials-namespaces") ?? "",
    {
      pattern: NAMESPACE_NAME,
      what: "namespace names",
    },
  );
  if (!credentials.ok) return credentials;

  return {
    ok: true,
    config: {
      ...ops.ops,
      nodeName,
      namespace,
      maxConcurrentProbes: max.value,
      credentialsNamespaces: credentials.names,
    },
  };
}
