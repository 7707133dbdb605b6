export { type BackoffPolicy, backoffDelay } from "./backoff.js";
export { type Clock, systemClock, type TimerHandle } from "./clock.js";
export {
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  type EventSubject,
  type EventType,
  kubeEventSink,
} from "./event-recorder.js";
export { type ParsedFlags, parseFlags, splitHostPort } from "./flags.js";
export {
  type Informer,
  type InformerEvent,
  type InformerHandler,
  type InformerOptions,
  startInformer,
} from "./informer.js";
export { describeApiError, httpStatusOf } from "./internal/api-errors.js";
export {
  createJsonClient,
  type JsonMethod,
  type JsonRequest,
  KubeApiError,
  type KubeJsonClient,
} from "./json-client.js";
export { type LeaderElectionOptions, runLeaderElection } from "./leader-election.js";
export {
  createLogger,
  isSensitiveField,
  LOG_LEVELS,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  parseLogLevel,
  REDACTED,
} from "./logger.js";
export { createKubeMetrics, createMetricsRegistry, type KubeMetrics } from "./metrics.js";
export { type OpsServer, type OpsServerOptions, startOpsServer } from "./ops-server.js";
export { DEFAULT_POOL_MAX_AGE_MS, PooledKubeConfig } from "./pooled-kube-config.js";
export { isRetryableApiError, type RetryOptions, withRetry } from "./retry.js";
export { onShutdown, type ShutdownOptions } from "./shutdown.js";
export { fullBucket, type TokenBucketPolicy, type TokenBucketState, takeToken } from "./token-bucket.js";
export {
  DEFAULT_QUEUE_BACKOFF,
  type RunOptions,
  type Worker,
  WorkQueue,
  type WorkQueueOptions,
  type WorkResult,
} from "./work-queue.js";
