/**
 * @swh/flags — the command line of the service-with-healthchecks programs (both apps and `swh-probe`): one flag
 * parser, the `--help` text and Go-style durations. A package of its own, with no dependencies, so that
 * `@swh/probes` (the standalone `swh-probe`) and `@swh/kube` (the apps) share one implementation without either
 * pulling in the other (ADR 0028).
 */
export { parseDuration } from "./duration.js";
export {
  type FlagSpec,
  type FlagSpecs,
  formatUsage,
  type ParsedFlags,
  type ParseResult,
  parseFlags,
} from "./flags.js";
