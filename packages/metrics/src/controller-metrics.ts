/**
 * The controller's own Prometheus metrics (deploy/METRICS.md, "Controller"); the shared ones (watch restarts,
 * queue depth, leader) come from `@swh/kube`. Leader-only series are cleared when leadership ends.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Metrics the controller updates. */
export interface ControllerMetrics {
  readonly buildInfo: Gauge<"component" | "version">;
  readonly reconcileDuration: Histogram;
  readonly reconcileErrors: Counter;
  readonly serviceEndpoints: Gauge<"namespace" | "service" | "state">;
  readonly failOpenPorts: Gauge<"namespace" | "service">;
  readonly heartbeatStale: Gauge<"node">;
  readonly notReadyAgentAlive: Gauge<"node">;
}

/** Registers the controller's metrics on `registry` and sets `swh_build_info`. */
export function createControllerMetrics(registry: Registry, version: string): ControllerMetrics {
  const registers = [registry];
  const gauge = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const metrics: ControllerMetrics = {
    buildInfo: gauge("swh_build_info", "Always 1; identifies the app and its version.", [
      "component",
      "version",
    ]),
    reconcileDuration: new Histogram({
      name: "swh_reconcile_duration_seconds",
      help: "Time of one reconcile of one ServiceWithHealthchecks.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    reconcileErrors: new Counter({
      name: "swh_reconcile_errors_total",
      help: "Reconciles that failed and were requeued.",
      registers,
    }),
    serviceEndpoints: gauge(
      "swh_service_endpoints",
      "Endpoints of each ServiceWithHealthchecks as aggregated into its status (leader only).",
      ["namespace", "service", "state"],
    ),
    failOpenPorts: gauge(
      "swh_service_fail_open_ports",
      "Service ports of each ServiceWithHealthchecks whose failing endpoints are published as if passing (fail-open, leader only).",
      ["namespace", "service"],
    ),
    heartbeatStale: gauge(
      "swh_agent_heartbeat_stale",
      "1 when the node is Ready but its agent's heartbeat Lease is not renewed, else 0 (leader only).",
      ["node"],
    ),
    notReadyAgentAlive: gauge(
      "swh_node_not_ready_agent_alive",
      "1 when the node is NotReady beyond the grace but its agent renews its heartbeat, so its slices are kept, else 0 (leader only).",
      ["node"],
    ),
  };
  metrics.buildInfo.set({ component: "controller", version }, 1);
  return metrics;
}

/**
 * An SWH's leader-only gauges: `swh_service_endpoints{state}` as its status counts them (`ready`, and the rest of
 * `total` as `not_ready`) and `swh_service_fail_open_ports`; `undefined` (the SWH is gone) removes its series.
 */
export function recordServiceGauges(
  metrics: Pick<ControllerMetrics, "serviceEndpoints" | "failOpenPorts">,
  ref: { namespace: string; name: string },
  counts: { ready: number; total: number; failOpenPorts: number } | undefined,
): void {
  const labels = { namespace: ref.namespace, service: ref.name };
  if (counts === undefined) {
    for (const state of ["ready", "not_ready"]) metrics.serviceEndpoints.remove({ ...labels, state });
    metrics.failOpenPorts.remove(labels);
    return;
  }
  metrics.serviceEndpoints.set({ ...labels, state: "ready" }, counts.ready);
  metrics.serviceEndpoints.set({ ...labels, state: "not_ready" }, counts.total - counts.ready);
  metrics.failOpenPorts.set(labels, counts.failOpenPorts);
}

/**
 * A node's leader-only gauges, `swh_agent_heartbeat_stale` and `swh_node_not_ready_agent_alive` (1 or 0) from the
 * controller's report on it; `undefined` (the Node is gone) removes its series.
 */
export function recordNodeGauges(
  metrics: Pick<ControllerMetrics, "heartbeatStale" | "notReadyAgentAlive">,
  node: string,
  report: { heartbeatStale: boolean; notReadyAgentAlive: boolean } | undefined,
): void {
  if (report === undefined) {
    metrics.heartbeatStale.remove({ node });
    metrics.notReadyAgentAlive.remove({ node });
    return;
  }
  metrics.heartbeatStale.set({ node }, report.heartbeatStale ? 1 : 0);
  metrics.notReadyAgentAlive.set({ node }, report.notReadyAgentAlive ? 1 : 0);
}

/** Clears the series only a leader reports: swh_service_endpoints, swh_service_fail_open_ports and the node gauges. */
export function clearLeaderOnlyMetrics(
  metrics: Pick<
    ControllerMetrics,
    "serviceEndpoints" | "failOpenPorts" | "heartbeatStale" | "notReadyAgentAlive"
  >,
): void {
  metrics.serviceEndpoints.reset();
  metrics.failOpenPorts.reset();
  metrics.heartbeatStale.reset();
  metrics.notReadyAgentAlive.reset();
}
