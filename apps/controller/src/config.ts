/**
 * Command-line flags of the controller (env fallbacks where the Deployment passes them). Parsing is pure and
 * returns data: a bad flag yields an error naming it instead of a half-configured process.
 */
import {
  booleanFlag,
  durationFlag,
  type FlagEnv,
  formatUsage,
  type ParseResult,
  readFlags,
} from "@swh/flags";
import { type OpsConfig, opsConfigOf, opsFlags } from "@swh/kube";

/** Parsed configuration; see `USAGE` for each flag. */
export interface ControllerConfig extends OpsConfig {
  namespace: string;
  leaderElect: boolean;
  nodeNotReadyGraceMs: number;
  identity: string;
}

/** The controller's config, `--help`, `--version`, or an error naming the flag. */
export type ConfigResult = ParseResult<ControllerConfig>;

const FLAGS = {
  // The controller always serves both: port 0 is any free port, never "off".
  ...opsFlags({ metricsPort: 8443, healthPort: 8081, disableWithZero: false }),
  namespace: {
    value: "NS",
    default: "$POD_NAMESPACE",
    help: "install namespace: leader Lease and agent heartbeat Leases",
    read: (given: string | undefined, flag: string, env: FlagEnv) => {
      const namespace = given ?? env.POD_NAMESPACE ?? "";
      if (namespace === "")
        return { ok: false as const, error: `${flag} is required (or set POD_NAMESPACE)` };
      return { ok: true as const, value: namespace };
    },
  },
  "leader-elect": booleanFlag({ fallback: true, help: "take part in leader election before writing" }),
  "node-not-ready-grace": durationFlag({
    value: "DUR",
    fallback: "5m",
    help: "delete a NotReady node's slices after this long (e.g. 90s, 5m, 1h)",
  }),
} as const;

/** The `--help` text: every flag with its default. */
export const USAGE = formatUsage(
  "swh-controller — reconciles ServiceWithHealthchecks into Services and status",
  FLAGS,
);

/** Parses `argv` (without node and script) with `env` fallbacks. */
export function parseConfig(argv: readonly string[], env: FlagEnv): ConfigResult {
  const flags = readFlags(argv, FLAGS, env);
  if (!flags.ok || !("values" in flags)) return flags;
  const ops = opsConfigOf(flags.values);
  if (!ops.ok) return ops;
  const config: ControllerConfig = {
    ...ops.ops,
    namespace: flags.values.namespace,
    leaderElect: flags.values["leader-elect"],
    nodeNotReadyGraceMs: flags.values["node-not-ready-grace"],
    identity: env.POD_NAME || `swh-controller-${process.pid}`,
  };
  return { ok: true, config };
}
