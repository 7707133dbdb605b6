/** @swh/agent — the node agent, runnable in-process (`runAgent`) or as the bundled executable (`main`). */
export { type AgentConfig, type BindAddress, type ParseConfigResult, parseAgentConfig } from "./config.js";
export { type RunAgentOptions, type RunningAgent, runAgent } from "./run-agent.js";
export { APP_VERSION } from "./version.js";
