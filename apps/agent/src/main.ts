/** The agent's executable entry: flags and environment → `runAgent`, SIGTERM → a clean stop. */
import { createLogger, exitUnlessConfig, loadKubeConfig, onShutdown } from "@swh/kube";
import { parseAgentConfig, USAGE } from "./config.js";
import { type RunningAgent, runAgent } from "./run-agent.js";
import { APP_VERSION } from "./version.js";

const config = exitUnlessConfig(parseAgentConfig(process.argv.slice(2), process.env), {
  name: "swh-agent",
  version: APP_VERSION,
  usage: USAGE,
});
const logger = createLogger({ level: config.logLevel, base: { component: "swh-agent" } });
const kubeConfig = loadKubeConfig(config.kubeconfig);

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
  agent = await runAgent({ ...config, kubeConfig, logger });
} catch (err) {
  logger.error("agent failed to start", { err });
  process.exit(1);
}
