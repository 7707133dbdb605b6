/**
 * TypeScript shape of the ServiceWithHealthchecks resource (SPEC §2). Spec types describe what a user may write
 * (optional fields); `Defaulted*` types describe the same after `applyDefaults` (what the API server stores).
 * No dependency on a Kubernetes client: the few core shapes used here are declared locally.
 */
import type { PostgresTlsMode } from "./constants.js";

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

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export type Protocol = "TCP" | "UDP" | "SCTP";
/** A port number (1..65535) or an IANA service name resolved against the pod's container ports. */
export type IntOrString = number | string;

export interface ServicePort {
  name?: string;
  protocol?: Protocol;
  port: number;
  targetPort?: IntOrString;
  nodePort?: number;
  appProtocol?: string;
}

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
export type IPFamily = "IPv4" | "IPv6";

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

export type ProbeMode = "TCP" | "HTTP" | "PostgreSQL";

export interface TcpProbeSpec {
  targetPort: IntOrString;
}

export interface HttpHeader {
  name: string;
  value: string;
}

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
}

export interface PostgresProbeSpec {
  targetPort: IntOrString;
  dbName?: string;
  query?: string;
  authSecretName?: string;
}

export interface ProbeSpec {
  mode: ProbeMode;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  tcp?: TcpProbeSpec;
  http?: HttpProbeSpec;
  postgreSQL?: PostgresProbeSpec;
}

export interface HealthcheckSpec {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  probes?: ProbeSpec[];
}

export interface ServiceWithHealthchecksSpec extends ServiceFields {
  healthcheck?: HealthcheckSpec;
}

// ---- After defaulting -------------------------------------------------------------------------

export type DefaultedServicePort = ServicePort & { protocol: Protocol };
export type DefaultedHttpProbeSpec = HttpProbeSpec & {
  path: string;
  scheme: "HTTP" | "HTTPS";
  method: "GET" | "HEAD";
  insecureSkipTLSVerify: boolean;
};
export type DefaultedPostgresProbeSpec = PostgresProbeSpec & { query: string };
export type DefaultedProbeSpec = Omit<ProbeSpec, "http" | "postgreSQL"> & {
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
  http?: DefaultedHttpProbeSpec;
  postgreSQL?: DefaultedPostgresProbeSpec;
};
export interface DefaultedHealthcheckSpec {
  initialDelaySeconds: number;
  periodSeconds: number;
  probes: DefaultedProbeSpec[];
}
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

/** Why a probe failed; a closed set shared by the probe engine, slices and status. */
export type ProbeFailureReason =
  | "ConnectionRefused"
  | "ConnectionReset"
  | "Timeout"
  | "HTTPStatus"
  | "TLSError"
  | "AuthFailed"
  | "QueryFalse"
  | "QueryError"
  | "ProtocolError"
  | "DNSError"
  | "CredentialsMissing"
  | "CredentialsInvalid"
  | "PortNotFound"
  | "NotProbedYet"
  | "Error";

export interface PortStatus {
  name?: string;
  port: number;
  readyEndpoints: number;
  totalEndpoints: number;
}

export interface EndpointPortStatus {
  name?: string;
  port: number;
  ready: boolean;
  /** The first failing probe of this port's group, when not ready because of a probe. */
  failingProbe?: string;
  reason?: ProbeFailureReason | string;
  message?: string;
}

export interface EndpointStatus {
  pod: string;
  node: string;
  address: string;
  ports: EndpointPortStatus[];
}

export interface EndpointsSummary {
  total: number;
  ready: number;
  notReady: number;
  terminating: number;
  /** True when `list` was cut at its bound. */
  truncated: boolean;
  list: EndpointStatus[];
}

export interface LoadBalancerStatus {
  ingress?: {
    ip?: string;
    hostname?: string;
    ipMode?: string;
    ports?: { port: number; protocol: Protocol; error?: string }[];
  }[];
}

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

export interface ServiceWithHealthchecks {
  apiVersion: "network.deckhouse.io/v1alpha1";
  kind: "ServiceWithHealthchecks";
  metadata: ObjectMeta;
  spec: ServiceWithHealthchecksSpec;
  status?: ServiceWithHealthchecksStatus;
}

/** Condition types of the status (SPEC §2.3). `ChildServiceReady` mirrors `ServiceReady` for compatibility. */
export const CONDITION_TYPES = {
  ready: "Ready",
  serviceReady: "ServiceReady",
  childServiceReady: "ChildServiceReady",
  probesValid: "ProbesValid",
} as const;

export type { PostgresTlsMode };
