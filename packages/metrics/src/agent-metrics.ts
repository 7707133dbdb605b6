/**
 * The agent's own Prometheus metrics, named as deploy/METRICS.md lists them (the dashboard and alert rules
 * read these names). Informer and queue metrics come from @swh/kube on the same registry.
 */
import type { EndpointGroup } from "@swh/aggregation";
import type { ProbeMode } from "@swh/crd-types";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export type ProbeModeLabel = "tcp" | "http" | "postgres" | "grpc";

/** Metrics the agent updates. */
export interface AgentMetrics {
  buildInfo: Gauge<"component" | "version">;
  probeResults: Counter<"mode" | "result">;
  probeDuration: Histogram<"mode">;
  probeTargets: Gauge;
  probesRunning: Gauge;
  probesWaiting: Gauge;
  endpoints: Gauge<"namespace" | "service" | "state">;
  endpointTransitions: Counter<"namespace" | "service" | "to">;
  sliceWrites: Counter<"action" | "result">;
  readinessGateWrites: Counter<"result">;
  endpointsWithheld: Gauge<"reason">;
}

/** Where the probe slot gauges are read at each scrape: the probe scheduler. */
export interface ProbeSlots {
  readonly running: number;
  readonly waiting: number;
}

/** Registers the agent metrics on `registry` (once per registry); `slots` feeds the probe slot gauges. */
export function createAgentMetrics(
  registry: Registry,
  version: string,
  slots: () => ProbeSlots | undefined = () => undefined,
): AgentMetrics {
  const registers = [registry];
  const metrics: AgentMetrics = {
    buildInfo: new Gauge({
      name: "swh_build_info",
      help: "Always 1; identifies the app and its version.",
      labelNames: ["component", "version"],
      registers,
    }),
    ...probeMetrics(registers, slots),
    ...publicationMetrics(registers),
  };
  metrics.buildInfo.set({ component: "agent", version }, 1);
  return metrics;
}

type ProbeMetrics = Pick<
  AgentMetrics,
  "probeResults" | "probeDuration" | "probeTargets" | "probesRunning" | "probesWaiting"
>;

/** The probe engine's series. */
function probeMetrics(registers: Registry[], slots: () => ProbeSlots | undefined): ProbeMetrics {
  return {
    probeResults: new Counter({
      name: "swh_probe_results_total",
      help: "Probes run, by mode and outcome (a timeout is a failure).",
      labelNames: ["mode", "result"],
      registers,
    }),
    probeDuration: new Histogram({
      name: "swh_probe_duration_seconds",
      help: "Time of one probe, success or failure.",
      labelNames: ["mode"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    probeTargets: new Gauge({
      name: "swh_probe_targets",
      help: "Distinct probers running on this agent (shared across SWHs).",
      registers,
    }),
    probesRunning: new Gauge({
      name: "swh_probes_running",
      help: "Probes in progress (at most --max-concurrent-probes; one namespace gets a fair share of it).",
      registers,
      collect() {
        this.set(slots()?.running ?? 0);
      },
    }),
    probesWaiting: new Gauge({
      name: "swh_probes_waiting",
      help: "Probes that are due and wait for a probe slot: above 0 for long means probes run late.",
      registers,
      collect() {
        this.set(slots()?.waiting ?? 0);
      },
    }),
  };
}

/** The series of what the agent publishes and writes. */
function publicationMetrics(registers: Registry[]): Omit<AgentMetrics, keyof ProbeMetrics | "buildInfo"> {
  return {
    endpoints: new Gauge({
      name: "swh_endpoints",
      help: "Endpoints this agent publishes, per ServiceWithHealthchecks and state (only SWHs with endpoints on this node).",
      labelNames: ["namespace", "service", "state"],
      registers,
    }),
    endpointTransitions: new Counter({
      name: "swh_endpoint_transitions_total",
      help: "Published endpoint readiness changes.",
      labelNames: ["namespace", "service", "to"],
      registers,
    }),
    sliceWrites: new Counter({
      name: "swh_slice_writes_total",
      help: "EndpointSlice writes by action and result (conflict = re-planned after 409/404/AlreadyExists).",
      labelNames: ["action", "result"],
      registers,
    }),
    readinessGateWrites: new Counter({
      name: "swh_readiness_gate_writes_total",
      help: "Pod readiness gate condition writes by result (gone = the pod was deleted or replaced meanwhile).",
      labelNames: ["result"],
      registers,
    }),
    endpointsWithheld: new Gauge({
      name: "swh_endpoints_withheld",
      help: "ServiceWithHealthchecks whose endpoints this agent withholds because their Service is not theirs, by reason.",
      labelNames: ["reason"],
      registers,
    }),
  };
}

/** Counts of the endpoints one SWH publishes on this node, by state (the `swh_endpoints` series). */
export interface EndpointCounts {
  ready: number;
  not_ready: number;
  terminating: number;
}

/** Counts endpoints (one per address and port) by published state: terminating first, then ready or not. */
export function countEndpoints(groups: readonly EndpointGroup[]): EndpointCounts {
  const counts: EndpointCounts = { ready: 0, not_ready: 0, terminating: 0 };
  for (const group of groups) {
    for (const endpoint of group.endpoints) {
      if (endpoint.conditions.terminating) counts.terminating++;
      else if (endpoint.conditions.ready) counts.ready++;
      else counts.not_ready++;
    }
  }
  return counts;
}

/**
 * Sets the per-SWH series of `namespace/name` — or removes them when the SWH is gone (`counts` undefined) or has
 * no endpoint on this node — so that an agent exports series only for the SWHs of its node (ADR 0025): a cluster of
 * N nodes and M SWHs carries about M series per state in total, not N × M.
 */
export function recordEndpointCounts(
  metrics: Pick<AgentMetrics, "endpoints" | "endpointTransitions">,
  ref: { namespace: string; name: string },
  counts: EndpointCounts | undefined,
): void {
  const onNode = counts !== undefined && counts.ready + counts.not_ready + counts.terminating > 0;
  for (const state of ["ready", "not_ready", "terminating"] as const) {
    const labels = { namespace: ref.namespace, service: ref.name, state };
    if (onNode) metrics.endpoints.set(labels, counts[state]);
    else metrics.endpoints.remove(labels);
  }
  if (!onNode) {
    for (const to of ["ready", "not_ready"] as const) {
      metrics.endpointTransitions.remove({ namespace: ref.namespace, service: ref.name, to });
    }
  }
}

/**
 * Counts the API writes of one slice write in `swh_slice_writes_total{action,result}`: `writes` is the writer's
 * count per action (create, update, delete) and outcome (`ApplyResult.writes` of @swh/slice-writer). An accepted
 * write is `success`; one refused (`notOwned`: the slice is not this agent's) or failed is `error`; one that found
 * our view stale (`conflict`, `notFound`, `alreadyExists`: re-planned) is `conflict`.
 */
export function recordSliceWrites(
  metrics: Pick<AgentMetrics, "sliceWrites">,
  writes: Readonly<Record<string, Readonly<Record<string, number>>>>,
): void {
  for (const [action, byOutcome] of Object.entries(writes)) {
    for (const [outcome, count] of Object.entries(byOutcome)) {
      if (count === 0) continue;
      const result =
        outcome === "ok" ? "success" : outcome === "notOwned" || outcome === "error" ? "error" : "conflict";
      metrics.sliceWrites.inc({ action, result }, count);
    }
  }
}

/** The `mode` label of a probe mode. */
export function probeModeLabel(mode: ProbeMode): ProbeModeLabel {
  return PROBE_MODE_LABELS[mode];
}
const PROBE_MODE_LABELS: Record<ProbeMode, ProbeModeLabel> = {
  TCP: "tcp",
  HTTP: "http",
  PostgreSQL: "postgres",
  GRPC: "grpc",
};
