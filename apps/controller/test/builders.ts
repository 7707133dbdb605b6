/** The builders the controller's cores are tested with in their packages, for the controller's own tests. */
export * from "../../../packages/node-liveness/test/node-builders.js";
export * from "../../../packages/slice-writer/test/slice-builders.js";
