/**
 * The controller, composed: informers every replica keeps warm (`informers.ts`), handlers that turn
 * notifications into SWH and node keys (`notifications.ts`), leadership terms (`leader-term.ts`), and per term the
 * workers of the two queues (`workers.ts`), which run the reconciles (`reconcile-swh.ts`, `reconcile-node.ts`).
 */

import { type LeaderElector, runLeaderTerms } from "@swh/kube";
import { clearLeaderOnlyMetrics, createControllerMetrics } from "@swh/metrics";
import type { ControllerIo, ControllerSettings } from "./controller-options.js";
import { createControllerApi } from "./internal/controller-api.js";
import { cachesSynced, watchCluster } from "./internal/informers.js";
import { type LeaderTerm, newLeaderTerm } from "./internal/leader-term.js";
import { enqueueWorld, routeNotifications } from "./internal/notifications.js";
import { createQueues, reportDropped, runWorkers, type WorkerEnv } from "./internal/workers.js";
import { APP_VERSION } from "./version.js";

/** A running controller. */
export interface RunningController {
  /** True once every informer has synced (the `/readyz` answer). */
  ready(): boolean;
  /** True while this replica's workers run. */
  leading(): boolean;
  /** Resolves once `signal` aborted and all work (and the leader Lease release) finished. */
  done: Promise<"stopped">;
}

/** Starts the controller (informers sync in the background). Without `elect` it leads at once. */
export function runController(
  settings: ControllerSettings,
  io: ControllerIo,
  elect?: LeaderElector,
): RunningController {
  const { logger, signal, kubeMetrics } = io;
  const metrics = createControllerMetrics(io.registry, APP_VERSION);
  const caches = watchCluster({ ...settings, ...io });
  const api = createControllerApi(io.kubeConfig);
  const env: WorkerEnv = { caches, api, events: io.events, metrics, settings };
  let term: LeaderTerm | undefined;
  // An SWH the queue stops retrying gets its last error in status, while this replica leads.
  const queues = createQueues({ ...settings, ...io }, async (dropped) => {
    if (term !== undefined) await reportDropped(dropped, term, env);
  });
  routeNotifications(caches, queues, () => term);

  let synced = false;
  const done = (async (): Promise<"stopped"> => {
    if (!(await cachesSynced(caches, signal))) return "stopped";
    synced = true;
    const { swhs, nodes, slices } = caches;
    const counts = { swhs: swhs.list().length, nodes: nodes.list().length, slices: slices.list().length };
    logger.info("caches synced", counts);
    await runLeaderTerms(elect, io, {
      // A term starts from the whole world and runs the workers until its signal aborts.
      start: async (termSignal) => {
        const started = newLeaderTerm(termSignal);
        term = started;
        kubeMetrics.leader.set(1);
        enqueueWorld(caches, queues);
        await runWorkers(started, queues, env);
      },
      // The series only a leader reports go with the term: a successor owns them.
      end: () => {
        term = undefined;
        kubeMetrics.leader.set(0);
        clearLeaderOnlyMetrics(metrics);
      },
    });
    return "stopped";
  })();
  return { ready: () => synced, leading: () => term !== undefined, done };
}
