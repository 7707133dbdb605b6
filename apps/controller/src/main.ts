/**
 * Process entry of swh-controller: parses flags, loads the kubeconfig (flag, in-cluster, then default), starts
 * the ops server, the controller and leader election, and shuts down gracefully on SIGTERM (workers stop, the
 * leader Lease is released so a successor takes over at once).
 */
import { CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import {
  createKubeMetrics,
  createLogger,
  createMetricsRegistry,
  EventRecorder,
  exitUnlessConfig,
  type LeaderElector,
  loadKubeConfig,
  onShutdown,
  runLeaderElection,
  startOpsServers,
} from "@swh/kube";
import { parseConfig, USAGE } from "./config.js";
import { runController } from "./run-controller.js";
import { APP_VERSION } from "./version.js";

/** Name of this component in Events (`reportingController`). */
export const COMPONENT = "network.deckhouse.io/swh-controller";

async function main(): Promise<void> {
  const config = exitUnlessConfig(parseConfig(process.argv.slice(2), process.env), {
    name: "swh-controller",
    version: APP_VERSION,
    usage: USAGE,
  });
  const logger = createLogger({ level: config.logLevel, base: { component: "swh-controller" } });
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const registry = createMetricsRegistry();
  const kubeMetrics = createKubeMetrics(registry);
  const stop = new AbortController();

  const elect: LeaderElector | undefined = config.leaderElect
    ? (hooks) =>
        runLeaderElection({
          kubeConfig,
          namespace: config.namespace,
          name: CONTROLLER_LEADER_LEASE,
          identity: config.identity,
          logger,
          metrics: kubeMetrics,
          ...hooks,
        })
    : undefined;
  const events = new EventRecorder({
    component: COMPONENT,
    instance: config.identity,
    kubeConfig,
    logger,
    metrics: kubeMetrics,
  });
  const controller = runController(
    { namespace: config.namespace, nodeNotReadyGraceMs: config.nodeNotReadyGraceMs },
    { kubeConfig, logger, registry, kubeMetrics, events, signal: stop.signal },
    elect,
  );

  const ops = await startOpsServers(
    { ...config, kubeConfig, commonName: "swh-controller" },
    registry,
    controller.ready,
    logger,
  );
  logger.info("swh-controller started", {
    version: APP_VERSION,
    namespace: config.namespace,
    leaderElect: config.leaderElect,
    identity: config.identity,
  });

  onShutdown(async (signal) => {
    logger.info("shutting down", { signal });
    stop.abort();
    await controller.done;
    await events.flush();
    await ops.close();
    logger.info("stopped");
  });
  controller.done.catch((err: unknown) => {
    logger.error("controller failed", { err });
    process.exit(1);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`swh-controller: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
