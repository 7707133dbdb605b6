/**
 * The node's probing: one scheduler for every distinct probe target of the node's pods (shared across SWHs), its
 * published results, and which SWHs gate on each target, so a changed result re-reconciles exactly those SWHs.
 * What is probed is decided by the targets pass (`TargetPlanning`); this file only runs it.
 */
import {
  diffTargets,
  type ProbeState,
  type ProbeStates,
  type ProbeTarget,
  type TargetPlan,
  type TargetUser,
  targetSchedule,
} from "@swh/aggregation";
import type { Logger } from "@swh/kube";
import { type AgentMetrics, type ProbeSlots, probeModeLabel } from "@swh/metrics";
import { ProbeResults, ProbeScheduler, probeBySpec, type ScheduledTarget } from "@swh/probes";
import type { CredentialsSecrets } from "./credentials-secrets.js";
import { runProbe } from "./run-probe.js";

/** The probe scheduler with its results (see the file comment). */
export class Probing {
  readonly #scheduler: ProbeScheduler<ProbeTarget>;
  readonly #results: ProbeResults;
  readonly #metrics: AgentMetrics;
  #users: ReadonlyMap<string, readonly TargetUser[]> = new Map();

  /** Starts nothing until `sync`; `changed` is told each SWH whose target's published state changed. */
  constructor(deps: {
    maxConcurrent: number;
    credentials: CredentialsSecrets;
    metrics: AgentMetrics;
    logger: Logger;
    signal: AbortSignal;
    changed(user: TargetUser): void;
  }) {
    const { metrics, logger } = deps;
    this.#metrics = metrics;
    this.#results = new ProbeResults((id) => {
      for (const user of this.#users.get(id) ?? []) deps.changed(user);
    });
    this.#scheduler = new ProbeScheduler<ProbeTarget>({
      maxConcurrent: deps.maxConcurrent,
      signal: deps.signal,
      run: (target, probeSignal) =>
        runProbe(target.probe, probeSignal, {
          probe: probeBySpec,
          credentials: (namespace, name) => deps.credentials.lookup(namespace, name),
        }),
      results: this.#results,
      observer: {
        // A throwing hook is a bug in the agent: keep probing, and make it visible.
        error: (err) => logger.error("probe result handling failed", { err }),
        transition: (id, state) =>
          logger.debug("probe target changed", { target: id, passing: state.passing }),
        result: (id, result) => {
          const mode = probeModeLabel(this.#scheduler.target(id)?.probe.probe.mode ?? "TCP");
          metrics.probeResults.inc({ mode, result: result.ok ? "success" : "failure" });
          metrics.probeDuration.observe({ mode }, result.durationMs / 1000);
        },
      },
    });
  }

  /** Probes exactly `plan.targets` from now on (new ones from `seeds` when given); unchanged ones carry on. */
  sync(plan: Pick<TargetPlan, "targets" | "users">, seeds?: ReadonlyMap<string, ProbeState>): void {
    this.#users = plan.users;
    syncTargets(this.#scheduler, plan.targets, Date.now(), seeds);
    this.#metrics.probeTargets.set(this.targetCount());
  }

  /** The published state of every target (a missing id has no result yet). */
  states(): ProbeStates {
    return this.#results.states;
  }

  targetCount(): number {
    return this.#scheduler.ids().length;
  }

  /** Probes running and waiting for a slot, for the slot gauges. */
  slots(): ProbeSlots {
    return this.#scheduler;
  }

  stop(): void {
    this.#scheduler.stop();
  }
}

/**
 * Makes the scheduler probe exactly `planned`: starts new targets (from `seeds` when given: the state published
 * before a restart), updates targets whose pod became eligible again, stops the others (their published state
 * goes with them). Unchanged targets are not touched, so their timing and thresholds carry on.
 */
function syncTargets(
  scheduler: ProbeScheduler<ProbeTarget>,
  planned: readonly ProbeTarget[],
  now: number,
  seeds: ReadonlyMap<string, ProbeState> = new Map(),
): void {
  const running = new Map<string, ProbeTarget>();
  for (const id of scheduler.ids()) {
    const target = scheduler.target(id)?.probe;
    if (target) running.set(id, target);
  }
  const { upsert, remove } = diffTargets(running, planned);
  for (const id of remove) scheduler.remove(id);
  for (const target of upsert) {
    const scheduled: ScheduledTarget<ProbeTarget> = targetSchedule(target, now);
    const seed = seeds.get(target.id);
    if (seed !== undefined) scheduled.seed = seed;
    scheduler.upsert(scheduled);
  }
}
