/**
 * TypeScript shape of the ServiceWithHealthchecks resource (SPEC §2). Spec types describe what a user may write
 * (optional fields); `Defaulted*` types describe the same after `applyDefaults` (what the API server stores).
 * No dependency on a Kubernetes client: the few core shapes used here are declared locally.
 */
import type { ProbeFailureReason } from "./reasons.js";

/** Minimal ObjectMeta: the fields this product reads or writes. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** An owner reference (core/v1 shape): ties an object to the object whose deletion removes it. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Transport protocol of a Service port. */
export type Protocol = "TCP" | "UDP" | "SCTP";
/** A port number (1..65535) or an IANA service name resolved against the pod's container ports. */
export type IntOrString = number | string;

/** One Service port (core/v1 ServicePort): `targetPort` defaults to `port`, `protocol` to TCP. */
export interface ServicePort {
  name?: string;
  protocol?: Protocol;
  port: number;
  targetPort?: IntOrString;
  nodePort?: number;
  appProtocol?: string;
}

/** How the Service is exposed, as for a core/v1 Service. */
export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
/** An IP address family. */
export type IPFamily = "IPv4" | "IPv6";

/** Client-IP session affinity settings (core/v1 shape). */
export interface SessionAffinityConfig {
  clientIP?: { timeoutSeconds?: number };
}

/** Every field of core/v1 ServiceSpec that makes sense without a pod selector controller (SPEC §2.1). */
export interface ServiceFields {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  type?: ServiceType;
  clusterIP?: string;
  clusterIPs?: string[];
  externalIPs?: string[];
  externalName?: string;
  externalTrafficPolicy?: "Cluster" | "Local";
  internalTrafficPolicy?: "Cluster" | "Local";
  healthCheckNodePort?: number;
  ipFamilies?: IPFamily[];
  ipFamilyPolicy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  loadBalancerClass?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  allocateLoadBalancerNodePorts?: boolean;
  publishNotReadyAddresses?: boolean;
  sessionAffinity?: "None" | "ClientIP";
  sessionAffinityConfig?: SessionAffinityConfig;
  trafficDistribution?: string;
}

/**
 * Which kind of probe a `ProbeSpec` runs; it names the one sub-object (`tcp`, `http`, `postgreSQL`, `grpc`) it
 * needs.
 */
export type ProbeMode = "TCP" | "HTTP" | "PostgreSQL" | "GRPC";

/** Every `ProbeMode` this version runs. A stored probe with another mode (newer schema, garbage) cannot run. */
export const PROBE_MODES: readonly ProbeMode[] = ["TCP", "HTTP", "PostgreSQL", "GRPC"];

/**
 * True when `mode` is a mode this version can run. Stored objects are not re-validated when the schema changes,
 * so readers check before trusting `ProbeSpec.mode` (an unknown mode fails the probe with `UnsupportedMode`).
 */
export function isProbeMode(mode: unknown): mode is ProbeMode {
  return (PROBE_MODES as readonly unknown[]).includes(mode);
}

/**
 * A value read from a stored object (a probe mode, a port name) as text for messages: a string as it is, anything
 * else as JSON; at most 40 characters, since a stored value that no schema checked may be anything.
 */
export function describeValue(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * A TCP probe: passes when a connection to `targetPort` opens and, when `expect` is set, the first 4 KiB the
 * server sends (after `send`, when set) contain `expect`. Both are UTF-8 text and may name the pod
 * (`POD_IDENTITY_VARIABLES`); a mismatch fails the probe with `TCPResponse`.
 */
export interface TcpProbeSpec {
  targetPort: IntOrString;
  /** Text written once the connection opens, e.g. `"PING\r\n"`. */
  send?: string;
  /** Text the server's answer must contain (a substring, not a regular expression). */
  expect?: string;
}

/** One request header an HTTP probe sends. */
export interface HttpHeader {
  name: string;
  value: string;
}

/**
 * An expectation on the start of an HTTP response body (at most the first 4 KiB are read): substrings, compared
 * byte for byte on the UTF-8 text, never regular expressions. Both may be set; both must hold.
 */
export interface HttpBodyMatch {
  /** The body must contain this text. */
  contains?: string;
  /** The body must not contain this text. */
  notContains?: string;
}

/**
 * An HTTP(S) probe: one GET/HEAD request to `targetPort`; passes on an accepted status and, when `body` is set,
 * a body that matches it.
 */
export interface HttpProbeSpec {
  targetPort: IntOrString;
  path?: string;
  host?: string;
  scheme?: "HTTP" | "HTTPS";
  method?: "GET" | "HEAD";
  httpHeaders?: HttpHeader[];
  insecureSkipTLSVerify?: boolean;
  caCert?: string;
  /** Accepted status codes; empty or missing = 200..399. */
  code?: number[];
  /** An expectation on the body (GET only); a mismatch fails the probe with `HTTPBody`. */
  body?: HttpBodyMatch;
  /**
   * Headers the response must carry, each with exactly this value (names compared case-insensitively); a
   * mismatch fails the probe with `HTTPHeader`. With a pod identity variable this proves which pod answered.
   */
  responseHeaders?: HttpHeader[];
}

/**
 * A PostgreSQL probe: connects with the credentials of the Secret `authSecretName` and passes when `query`
 * returns a truthy first value.
 */
export interface PostgresProbeSpec {
  targetPort: IntOrString;
  dbName?: string;
  query?: string;
  authSecretName?: string;
}

/**
 * A gRPC health probe: calls `grpc.health.v1.Health/Check` for `service` (empty or missing = the server as a
 * whole) on `targetPort` and passes when the answer is `SERVING`. `tls` speaks TLS (ALPN h2); the certificate
 * is verified against `caCert` or the system roots and its name against `host` (or else the pod IP), unless
 * `insecureSkipTLSVerify`. `host` is only the `:authority` and TLS server name: the connection always goes to
 * the pod IP.
 */
export interface GrpcProbeSpec {
  targetPort: IntOrString;
  service?: string;
  host?: string;
  tls?: boolean;
  insecureSkipTLSVerify?: boolean;
  caCert?: string;
}

/** One health probe of a port: its mode, timing and the sub-object of that mode. */
export interface ProbeSpec {
  mode: ProbeMode;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  tcp?: TcpProbeSpec;
  http?: HttpProbeSpec;
  postgreSQL?: PostgresProbeSpec;
  grpc?: GrpcProbeSpec;
}

/** When and how often the probes run, and which probes gate the ports. */
export interface HealthcheckSpec {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  /**
   * Seconds between two probes of a target while its result is changing (between thresholds: some consecutive
   * results disagree with its state), like HAProxy's `fastinter` (ADR 0037). Absent: `periodSeconds`.
   */
  transitionPeriodSeconds?: number;
  /**
   * Seconds between two probes of a target that is down (failing, after it passed once), like HAProxy's
   * `downinter` (ADR 0037). Absent: `periodSeconds`.
   */
  downPeriodSeconds?: number;
  probes?: ProbeSpec[];
  /** Fail-open per Service port (ADR 0039); absent: the checks always decide. */
  failOpen?: FailOpenSpec;
}

/**
 * Fail-open (ADR 0039): when too few endpoints of a Service port pass their checks across the cluster, that port's
 * endpoints whose checks fail are published as if passing, until enough pass again. Drained, terminating and
 * not-yet-probed endpoints and probes that cannot run (configuration failures) are never published by it.
 */
export interface FailOpenSpec {
  /**
   * Fail open while fewer than this percentage of the port's judged endpoints pass (1..100). Absent: only while
   * none of them passes (every judged endpoint fails).
   */
  healthyBelowPercent?: number;
}

/** What a user writes in `spec`: the Service fields plus the health checks. */
export interface ServiceWithHealthchecksSpec extends ServiceFields {
  healthcheck?: HealthcheckSpec;
}

// ---- After defaulting -------------------------------------------------------------------------

/** A Service port after defaulting: the protocol is always set. */
export type DefaultedServicePort = ServicePort & { protocol: Protocol };
/** An HTTP probe after defaulting: path, scheme, method and insecureSkipTLSVerify are always set. */
export type DefaultedHttpProbeSpec = HttpProbeSpec & {
  path: string;
  scheme: "HTTP" | "HTTPS";
  method: "GET" | "HEAD";
  insecureSkipTLSVerify: boolean;
};
/** A PostgreSQL probe after defaulting: the query is always set. */
export type DefaultedPostgresProbeSpec = PostgresProbeSpec & { query: string };
/** A gRPC probe after defaulting: tls and insecureSkipTLSVerify are always set. */
export type DefaultedGrpcProbeSpec = GrpcProbeSpec & { tls: boolean; insecureSkipTLSVerify: boolean };
/** A probe after defaulting: timeout and thresholds are always set, sub-objects defaulted too. */
export type DefaultedProbeSpec = Omit<ProbeSpec, "http" | "postgreSQL" | "grpc"> & {
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
  http?: DefaultedHttpProbeSpec;
  postgreSQL?: DefaultedPostgresProbeSpec;
  grpc?: DefaultedGrpcProbeSpec;
};
/** The health checks after defaulting: delay, period and the probe list are always set. */
export interface DefaultedHealthcheckSpec {
  initialDelaySeconds: number;
  periodSeconds: number;
  transitionPeriodSeconds?: number;
  downPeriodSeconds?: number;
  probes: DefaultedProbeSpec[];
  failOpen?: FailOpenSpec;
}
/** `spec` after defaulting (what the API server stores and the controller and agent read). */
export type DefaultedServiceWithHealthchecksSpec = Omit<
  ServiceWithHealthchecksSpec,
  "ports" | "healthcheck"
> & {
  type: ServiceType;
  ports: DefaultedServicePort[];
  healthcheck: DefaultedHealthcheckSpec;
};

// ---- Status (written by the controller only) ---------------------------------------------------

/** Standard Kubernetes condition shape. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Per Service port: how many endpoints are ready out of all. */
export interface PortStatus {
  name?: string;
  port: number;
  readyEndpoints: number;
  totalEndpoints: number;
}

/** One port of one endpoint in the status: ready or not, and why not. */
export interface EndpointPortStatus {
  name?: string;
  port: number;
  ready: boolean;
  /** The first failing probe of this port's group, when not ready because of a probe. */
  failingProbe?: string;
  reason?: ProbeFailureReason | string;
  message?: string;
}

/** One endpoint (pod address) in the status, with the state of each of its ports. */
export interface EndpointStatus {
  pod: string;
  node: string;
  address: string;
  ports: EndpointPortStatus[];
}

/** Endpoint counts plus a bounded list of endpoints, for `status.endpoints`. */
export interface EndpointsSummary {
  total: number;
  ready: number;
  notReady: number;
  terminating: number;
  /** True when `list` was cut at its bound. */
  truncated: boolean;
  list: EndpointStatus[];
}

/** The load balancer state, as a core/v1 Service reports it. */
export interface LoadBalancerStatus {
  ingress?: {
    ip?: string;
    hostname?: string;
    ipMode?: string;
    ports?: { port: number; protocol: Protocol; error?: string }[];
  }[];
}

/** What the controller reports in `status`. */
export interface ServiceWithHealthchecksStatus {
  observedGeneration?: number;
  /** Ready endpoint-ports over all endpoint-ports, e.g. "3/4": the Ready printer column. */
  readySummary?: string;
  /** Service ports as kubectl prints them, e.g. "80/TCP,5432:30432/TCP": the Ports printer column. */
  portsSummary?: string;
  /** External addresses as kubectl prints them for a Service ("<none>", "<pending>", "1.2.3.4"): the External-IP column. */
  externalIPSummary?: string;
  conditions?: Condition[];
  ports?: PortStatus[];
  endpoints?: EndpointsSummary;
  clusterIP?: string;
  clusterIPs?: string[];
  loadBalancer?: LoadBalancerStatus;
}

/** The whole ServiceWithHealthchecks object. */
export interface ServiceWithHealthchecks {
  apiVersion: "network.deckhouse.io/v1alpha1";
  kind: "ServiceWithHealthchecks";
  metadata: ObjectMeta;
  spec: ServiceWithHealthchecksSpec;
  status?: ServiceWithHealthchecksStatus;
}

/**
 * Condition types of the status (SPEC §2.3). `ChildServiceReady` mirrors `ServiceReady` for compatibility.
 * `Reconciled` is present only while the controller has stopped retrying an SWH that keeps failing: `False`,
 * reason `ReconcileFailed`, the last error as message; the next successful reconcile removes it (ADR 0022).
 */
export const CONDITION_TYPES = {
  ready: "Ready",
  serviceReady: "ServiceReady",
  childServiceReady: "ChildServiceReady",
  probesValid: "ProbesValid",
  agentsReporting: "AgentsReporting",
  reconciled: "Reconciled",
  /** Only while `spec.trafficDistribution` asks for topology hints: whether the endpoints carry them. */
  topologyHints: "TopologyHints",
  /** Only while `spec.healthcheck.failOpen` is set: False while some port fails open (ADR 0039). */
  checksEnforced: "ChecksEnforced",
} as const;
