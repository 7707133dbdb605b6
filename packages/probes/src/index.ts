/**
 * @swh/probes — TCP, HTTP(S), PostgreSQL and gRPC health probes with hard deadlines, a pure threshold state machine
 * and a scheduler. Generic: nothing here knows about pods or Kubernetes.
 */

export { type AdaptivePeriods, adaptivePeriodMs } from "./adaptive-period.js";
export { MAX_TIMER_DELAY_MS, type MonotonicClock, monotonicClock, type TimerHandle } from "./clock.js";
export { probeBySpec } from "./probe-by-spec.js";
export { type GrpcProbeConfig, probeGrpc } from "./probe-grpc.js";
export {
  buildHttpRequest,
  type HttpProbeConfig,
  MAX_BODY_BYTES,
  probeHttp,
} from "./probe-http.js";
export {
  type PostgresCredentials,
  type PostgresProbeConfig,
  probePostgres,
} from "./probe-postgres.js";
export {
  PROBE_REASONS,
  type ProbeAddress,
  ProbeConfigError,
  type ProbeOptions,
  type ProbePhaseTimings,
  type ProbeReason,
  type ProbeResult,
} from "./probe-result.js";
export {
  nextPublishedResult,
  ProbeResults,
  type PublishedResult,
  type ResultOutcome,
  type ResultUpdate,
  samePublishedResult,
} from "./probe-results.js";
export { MAX_TCP_ANSWER_BYTES, probeTcp, type TcpProbeConfig } from "./probe-tcp.js";
export {
  type ProbeObserver,
  ProbeScheduler,
  type ProbeSchedulerOptions,
  type ProbeTiming,
  type ScheduledTarget,
  type TargetState,
} from "./scheduler.js";
export {
  initialThresholdState,
  nextThresholdState,
  seededThresholdState,
  type ThresholdState,
  type Thresholds,
} from "./threshold.js";
