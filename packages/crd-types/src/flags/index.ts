/**
 * `@swh/crd-types/flags` — the command line of the service-with-healthchecks programs (both apps and `swh-probe`):
 * one flag parser, the `--help` text and Go-style durations. A subpath of this dependency-free base package, so that
 * `@swh/probes` (the standalone `swh-probe`) and `@swh/kube` (the apps) share one implementation without either
 * pulling in the other, and kept out of the main entry point, which is the resource's API (ADR 0028).
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
