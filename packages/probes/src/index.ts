/**
 * @swh/probes — TCP, HTTP(S), PostgreSQL and gRPC health probes with hard deadlines, a pure threshold state machine
 * and a scheduler. Generic: nothing here knows about pods or Kubernetes.
 */
export { MAX_TIMER_DELAY_MS, type MonotonicClock, monotonicClock, type TimerHandle } from "./clock.js";
export { isTruthyQueryValue } from "./internal/query-truthiness.js";
export { probeBySpec } from "./probe-by-spec.js";
export {
  type GrpcProbeConfig,
  MAX_GRPC_HEADER_LIST_BYTES,
  MAX_GRPC_MESSAGE_BYTES,
  probeGrpc,
} from "./probe-grpc.js";
export {
  buildHttpRequest,
  type HttpProbeConfig,
  isAcceptedStatus,
  judgeHttpResponse,
  MAX_BODY_BYTES,
  MAX_HEAD_BYTES,
  probeHttp,
} from "./probe-http.js";
export {
  describePostgresTarget,
  MAX_POSTGRES_RESPONSE_BYTES,
  type PostgresCredentials,
  type PostgresProbeConfig,
  postgresSslOption,
  probePostgres,
} from "./probe-postgres.js";
export {
  PROBE_REASONS,
  type ProbeAddress,
  ProbeConfigError,
  type ProbeOptions,
  type ProbeReason,
  type ProbeResult,
} from "./probe-result.js";
export {
  MAX_RESULT_MESSAGE_LENGTH,
  nextPublishedResult,
  ProbeResults,
  type PublishedResult,
  type ResultOutcome,
  type ResultUpdate,
  samePublishedResult,
} from "./probe-results.js";
export { probeTcp } from "./probe-tcp.js";
export {
  DEFAULT_TICK_MS,
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
