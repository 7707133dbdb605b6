/**
 * @swh/crd-types — the ServiceWithHealthchecks API for its users: the resource's TypeScript types, `applyDefaults`,
 * `validate`, the typed builders, the CRD manifest, the labels and annotations on the objects the product writes,
 * the PostgreSQL credentials Secret, the reason codes, and the object-key helpers. Each name is listed here (no
 * `export *`), so a new file exports nothing until it is added.
 *
 * `@swh/crd-types/internal` (src/internal.ts) holds the contracts between this repository's own components (the
 * spec the controller publishes for the agents, field managers, Lease names, ownership rules, status helpers):
 * no semver promise, for the controller, the agent and their packages only. The schema tree and its bounds
 * (src/schema.ts, src/internal/) are exported by neither.
 */
// biome-ignore-all assist/source/organizeImports: the exports are grouped by purpose, one comment per group.

// The resource's shape: spec, status, their defaulted forms, and the probe modes.
export {
  CONDITION_TYPES,
  type Condition,
  type DefaultedGrpcProbeSpec,
  type DefaultedHealthcheckSpec,
  type DefaultedHttpProbeSpec,
  type DefaultedPostgresProbeSpec,
  type DefaultedProbeSpec,
  type DefaultedServicePort,
  type DefaultedServiceWithHealthchecksSpec,
  type EndpointPortStatus,
  type EndpointStatus,
  type EndpointsSummary,
  type GrpcProbeSpec,
  type FailOpenSpec,
  type HealthcheckSpec,
  type HttpBodyMatch,
  type HttpHeader,
  type HttpProbeSpec,
  type IntOrString,
  type IPFamily,
  isProbeMode,
  type LoadBalancerStatus,
  type ObjectMeta,
  type OwnerReference,
  type PortStatus,
  type PostgresProbeSpec,
  PROBE_MODES,
  type ProbeMode,
  type ProbeSpec,
  type Protocol,
  type ServiceFields,
  type ServicePort,
  type ServiceType,
  type ServiceWithHealthchecks,
  type ServiceWithHealthchecksSpec,
  type ServiceWithHealthchecksStatus,
  type SessionAffinityConfig,
  type TcpProbeSpec,
} from "./types.js";
// How programs address the resource: group, version, kind, plural.
export { API_VERSION, GROUP, KIND, PLURAL, VERSION } from "./constants.js";
// The API server's defaulting and validation, and the probe/port check behind the ProbesValid condition.
export { applyDefaults } from "./apply-defaults.js";
export { type ValidationIssue, validate } from "./validate.js";
export { checkProbePorts } from "./check-probe-ports.js";
// Typed manifests.
export {
  grpcProbe,
  httpProbe,
  type ManifestMeta,
  type ProbeTiming,
  postgresProbe,
  serviceWithHealthchecks,
  tcpProbe,
} from "./builders.js";
// The CustomResourceDefinition.
export { crdManifest, type JsonValue } from "./crd-manifest.js";
// Labels and annotations on the Services and EndpointSlices the product writes: what users select on and read.
export {
  ANNOTATION_ENDPOINT_REASONS,
  ANNOTATION_DRAIN,
  ANNOTATION_NODE_NAME,
  LABEL_ADDRESS_FAMILY,
  LABEL_HEADLESS,
  LABEL_MANAGED_BY,
  LABEL_MANAGED_SERVICE,
  LABEL_NODE,
  LABEL_PORT,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_PROXY_NAME,
  MANAGED_BY,
  MANAGED_SERVICE_SELECTOR,
  READINESS_GATE_PREFIX,
} from "./constants.js";
// The PostgreSQL credentials Secret: its type and keys, its builder and its reader.
export {
  POSTGRES_CREDENTIALS_KEYS,
  POSTGRES_CREDENTIALS_SECRET_TYPE,
  POSTGRES_TLS_MODES,
  type PostgresTlsMode,
} from "./constants.js";
export {
  InvalidPostgresCredentialsError,
  type PostgresCredentials,
  type PostgresCredentialsReading,
  type PostgresCredentialsSecret,
  postgresCredentialsSecret,
  readPostgresCredentials,
  type SecretView,
} from "./postgres-credentials.js";
// Reason codes of conditions, Events and endpoints (each documented in docs/troubleshooting.md).
export {
  CONDITION_REASONS,
  CONFIGURATION_FAILURE_REASONS,
  DRAINED_REASON,
  type ConditionReason,
  EVENT_REASONS,
  type EventReason,
  PROBE_FAILURE_REASON_SOURCES,
  PROBE_FAILURE_REASONS,
  type ProbeFailureReason,
  type ProbeFailureSource,
  PUBLICATION_BLOCKS,
  type PublicationBlock,
  READINESS_GATE_REASONS,
  SERVICE_PROBLEMS,
  type ServiceProblem,
  type ServiceSyncFailureReason,
} from "./reasons.js";
// "namespace/name" keys of objects, for queues, caches and indexes.
export { objectKey, splitObjectKey } from "./object-key.js";

// Pod identity variables in probe texts (ADR 0036).
export { expandPodIdentity, POD_IDENTITY_VARIABLES, type PodIdentity } from "./pod-identity.js";
