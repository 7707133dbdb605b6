/**
 * Command-line flags of the controller (env fallbacks where the Deployment passes them). Parsing is pure and
 * returns data: a bad flag yields an error naming it instead of a half-configured process.
 */
import { type FlagSpecs, formatUsage, type ParseResult, parseDurationFlag, parseFlags } from "@swh/flags";
import { type OpsConfig, opsFlags, parseOpsFlags } from "@swh/kube";

/** Parsed configuration; see `USAGE` for each flag. */
export interface ControllerConfig extends OpsConfig {
  namespace: string;
  leaderElect: boolean;
  nodeNotReadyGraceMs: number;
  identity: string;
}

/** The controller's config, `--help`, `--version`, or an error naming the flag. */
export type ConfigResult = ParseResult<ControllerConfig>;

// The controller always serves both: port 0 is any free port, never "off".
const OPS = { metricsPort: 8443, healthPort: 8081, disableWithZero: false } as const;

const FLAGS = {
  ...opsFlags(OPS),
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
  // A boolean flag: the parser has refused anything but true and false.
  const leaderElect = values.get("leader-elect") !== "false";
  const ops = parseOpsFlags(values, env, OPS);
  if (!ops.ok) return ops;
  const grace = parseDurationFlag("--node-not-ready-grace", values.get("node-not-ready-grace") ?? "5m");
  if (!grace.ok) return grace;

  const config: ControllerConfig = {
    ...ops.ops,
    namespace,
    leaderElect,
    nodeNotReadyGraceMs: grace.ms,
    identity: env.POD_NAME || `swh-controller-${process.pid}`,
  };
  return { ok: true, config };
}
