/** The builders the agent's cores are tested with in @swh/slice-writer, for the agent's own tests. */
export * from "../../../packages/slice-writer/test/agent-builders.js";
