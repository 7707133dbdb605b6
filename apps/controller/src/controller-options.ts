/**
 * What `runController` is given: its settings (plain data) and what it talks to (injected, so tests run it
 * in-process). Its own file, so the parts `runController` composes can take them without importing it.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { KubeMetrics, Logger } from "@swh/kube";
import type { Registry } from "prom-client";
import type { EventRecorderLike } from "./internal/controller-api.js";

/** How the controller is configured (plain data). */
export interface ControllerSettings {
  /** Install namespace: where the agents' heartbeat Leases live. */
  namespace: string;
  nodeNotReadyGraceMs: number;
  /** Informer resync period; default the informer's. */
  resyncMs?: number;
  /** Deadline of one reconcile (its writes are aborted after it); default the queue's 30 s (ADR 0022). */
  reconcileTimeoutMs?: number;
  /** Failed retries in a row after which a key waits for its next event; default the queue's 15 (ADR 0022). */
  maxRetries?: number;
}

/** What the controller talks to, injected so tests run it in-process. */
export interface ControllerIo {
  kubeConfig: KubeConfig;
  logger: Logger;
  registry: Registry;
  kubeMetrics: KubeMetrics;
  events: EventRecorderLike;
  /** Stops everything: informers, workers, leader election. */
  signal: AbortSignal;
}
