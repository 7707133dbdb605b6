/**
 * The controller as a library, for in-process tests and tools: the process entry is `main.ts` (bundled to
 * `dist/main.mjs`).
 */

export type { LeaderElector } from "@swh/kube";
export { type ControllerConfig, parseConfig } from "./config.js";
export type { ControllerIo, ControllerSettings } from "./controller-options.js";
export type { EventRecorderLike } from "./internal/controller-api.js";
export { type RunningController, runController } from "./run-controller.js";
export { APP_VERSION } from "./version.js";
