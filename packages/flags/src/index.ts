/**
 * @swh/flags — the command line of the service-with-healthchecks programs (both apps and `swh-probe`): one flag
 * parser, the `--help` text, Go-style durations and the other values flags hold. Pure and without dependencies, so
 * that `@swh/probes` (the standalone `swh-probe`) and `@swh/kube` (the apps) share one implementation without either
 * pulling in the other, and without it living in the resource's API package (ADR 0028).
 */
export type { FlagEnv, FlagRead, FlagSpec, FlagSpecs, ParseResult } from "./flag-spec.js";
export { formatUsage } from "./format-usage.js";
export { parseDuration, parseDurationFlag } from "./parse-duration.js";
export { type ParsedFlags, parseFlags } from "./parse-flags.js";
export { parseIntegerFlag, parseNameSetFlag } from "./parse-values.js";
export { type FlagValues, type ReadFlags, readFlags } from "./read-flags.js";
export { booleanFlag, durationFlag, integerFlag, nameSetFlag } from "./value-flags.js";
