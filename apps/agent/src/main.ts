/** The agent's executable entry: flags and environment → `runAgent`, SIGTERM → a clean stop. */
import { createLogger, onShutdown, PooledKubeConfig } from "@swh/kube";
import { parseAgentConfig, USAGE } from "./config.js";
import { type RunningAgent, runAgent } from "./run-agent.js";
import { APP_VERSION } from "./version.js";

const parsed = parseAgentConfig(process.argv.slice(2), process.env);
if (!parsed.ok) {
  process.stderr.write(`swh-agent: ${parsed.error} (swh-agent --help lists the flags)\n`);
  process.exit(2);
}
if ("help" in parsed) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if ("version" in parsed) {
  process.stdout.write(`swh-agent ${APP_VERSION}\n`);
  process.exit(0);
}
const { config } = parsed;
const logger = createLogger({ level: config.logLevel, base: { component: "swh-agent" } });
// One connection pool for every API request (see pooled-kube-config.ts).
const kubeConfig = new PooledKubeConfig();
if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
else kubeConfig.loadFromDefault();

logger.info("starting", {
  version: APP_VERSION,
  node: config.nodeName,
  namespace: config.namespace,
  credentialsNamespaces: config.credentialsNamespaces,
});
let agent: RunningAgent | undefined;
// A signal before the agent runs exits at once: nothing has been written yet.
onShutdown(async (signal) => {
  logger.info("shutting down", { signal });
  await agent?.stop();
});
try {
  agent = await runAgent({
    kubeConfig,
    nodeName: config.nodeName,
    namespace: config.namespace,
    logger,
    maxConcurrentProbes: config.maxConcurrentProbes,
    credentialsNamespaces: config.credentialsNamespaces,
    metricsBindAddress: config.metricsBindAddress,
    metricsTls: config.metricsTls,
    healthBindAddress: config.healthBindAddress,
  });
} catch (err) {
  logger.error("agent failed to start", { err });
  process.exit(1);
}
