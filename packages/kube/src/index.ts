export type { BackoffPolicy } from "./backoff.js";
export { type BindAddress, parseBindAddress, splitHostPort } from "./bind-address.js";
export { type Clock, MAX_TIMER_DELAY_MS, systemClock, type TimerHandle } from "./clock.js";
export {
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  type EventSubject,
  type EventType,
} from "./event-recorder.js";
export { exitUnlessConfig, type ProgramInfo } from "./exit-unless-config.js";
export { type HealthServerOptions, startHealthServer } from "./health-server.js";
export { type HeartbeatOptions, renewHeartbeat, runHeartbeat } from "./heartbeat.js";
export {
  allHaveSynced,
  allSynced,
  type Informer,
  type InformerEvent,
  type InformerHandler,
  type InformerOptions,
  type ListPage,
  startInformer,
} from "./informer.js";
export { apiErrorMessage, describeApiError, httpStatusOf } from "./internal/api-errors.js";
export type { OpsServer } from "./internal/listen.js";
export {
  createJsonClient,
  type JsonMethod,
  type JsonRequest,
  KubeApiError,
  type KubeJsonClient,
} from "./json-client.js";
export { type KeptObjectSources, KeptObjects } from "./kept-objects.js";
export { type LeaderElectionOptions, runLeaderElection } from "./leader-election.js";
export { type LeaderElector, runLeaderTerms } from "./leader-terms.js";
export { loadKubeConfig } from "./load-kube-config.js";
export {
  createLogger,
  LOG_LEVELS,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  parseLogLevel,
  REDACTED,
} from "./logger.js";
export { createKubeMetrics, createMetricsRegistry, type KubeMetrics } from "./metrics.js";
export {
  type AccessDecision,
  cachedMetricsAccess,
  kubeMetricsAccess,
  type MetricsAccess,
  type MetricsAccessCacheOptions,
} from "./metrics-access.js";
export { type MetricsServerOptions, startMetricsServer } from "./metrics-server.js";
export {
  type NamespacedInformerOptions,
  type NamespacedInformers,
  type NamespacedLookup,
  startNamespacedInformers,
} from "./namespaced-informers.js";
export { errorSummary, ObjectProblemReporter } from "./object-problem-reporter.js";
export {
  type OpsConfig,
  type OpsFlagsOptions,
  type OpsFlagValues,
  opsConfigOf,
  opsFlags,
} from "./ops-flags.js";
export { type OpsServerOptions, type OpsServers, startOpsServers } from "./ops-servers.js";
export { PooledKubeConfig } from "./pooled-kube-config.js";
export { isRetryableApiError, type RetryOptions, withRetry } from "./retry.js";
export {
  type CertificatePair,
  createSelfSignedCertificate,
  type SelfSignedCertificateOptions,
} from "./self-signed-certificate.js";
export type { CertificateFiles } from "./serving-certificate.js";
export { onShutdown, type ShutdownOptions } from "./shutdown.js";
export { isTerminalError, TerminalError } from "./terminal-error.js";
export type { TokenBucketPolicy } from "./token-bucket.js";
export { TtlCache } from "./ttl-cache.js";
export {
  DEFAULT_MAX_RETRIES,
  type DropKind,
  type DroppedKey,
  type RunOptions,
  type WorkContext,
  type Worker,
  WorkQueue,
  type WorkQueueOptions,
  type WorkResult,
  WorkTimeoutError,
} from "./work-queue.js";
export { WritePacer } from "./write-pacer.js";
export { WrittenObjects } from "./written-objects.js";
