export * from "./apply-defaults.js";
export * from "./builders.js";
export * from "./constants.js";
export * from "./crd-manifest.js";
export * from "./probe-timeout.js";
export * from "./schema.js";
export * from "./types.js";
export * from "./validate.js";
