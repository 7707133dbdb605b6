/**
 * The Prometheus metrics this package reports, registered on the application's own registry so both apps expose
 * one `/metrics` with their metrics, ours and the Node.js process metrics.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";

/** Metrics updated by informers, work queues, leader election and the event recorder. */
export interface KubeMetrics {
  /** `swh_watch_restarts_total{informer}`: an informer re-listed after an error. */
  readonly watchRestarts: Counter<"informer">;
  /** `swh_workqueue_depth{queue}`: keys waiting (not running, not delayed). */
  readonly queueDepth: Gauge<"queue">;
  /** `swh_workqueue_retries_total{queue}`: keys re-queued with backoff after a failure. */
  readonly queueRetries: Counter<"queue">;
  /** `swh_workqueue_dropped_total{queue,kind}`: keys dropped without a retry: `terminal` or `retry_limit`. */
  readonly queueDropped: Counter<"queue" | "kind">;
  /** `swh_leader`: 1 while this process holds the leader Lease. */
  readonly leader: Gauge;
  /** `swh_events_total{result}`: Events by outcome (created, patched, dropped, failed). */
  readonly events: Counter<"result">;
}

/** Creates a registry with the default Node.js process metrics already collected on it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Registers this package's metrics on `registry` (call once per registry). */
export function createKubeMetrics(registry: Registry): KubeMetrics {
  const registers = [registry];
  return {
    watchRestarts: new Counter({
      name: "swh_watch_restarts_total",
      help: "Informer restarts (re-list) after a list or watch error.",
      labelNames: ["informer"],
      registers,
    }),
    queueDepth: new Gauge({
      name: "swh_workqueue_depth",
      help: "Keys waiting in the work queue.",
      labelNames: ["queue"],
      registers,
    }),
    queueRetries: new Counter({
      name: "swh_workqueue_retries_total",
      help: "Keys re-queued with backoff after the worker failed.",
      labelNames: ["queue"],
      registers,
    }),
    queueDropped: new Counter({
      name: "swh_workqueue_dropped_total",
      help: "Failed keys not retried until their next event: a terminal error, or the retry limit reached.",
      labelNames: ["queue", "kind"],
      registers,
    }),
    leader: new Gauge({
      name: "swh_leader",
      help: "1 while this process holds the leader Lease.",
      registers,
    }),
    events: new Counter({
      name: "swh_events_total",
      help: "Kubernetes Events by outcome: created, patched (aggregated), dropped (rate limit), failed.",
      labelNames: ["result"],
      registers,
    }),
  };
}
