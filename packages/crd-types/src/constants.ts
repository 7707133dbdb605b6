/** API group of the ServiceWithHealthchecks resource (compatible with the original module). */
export const GROUP = "network.deckhouse.io";
/** Served and stored version of the resource. */
export const VERSION = "v1alpha1";
/** `apiVersion` field value of every ServiceWithHealthchecks object. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** Kind of the resource. */
export const KIND = "ServiceWithHealthchecks";
/** Kind of the resource's list. */
export const LIST_KIND = "ServiceWithHealthchecksList";
/** Plural resource name, as used in API paths and RBAC rules. */
export const PLURAL = "servicewithhealthchecks";
/** Singular resource name. */
export const SINGULAR = "servicewithhealthcheck";
/** Short name for kubectl. */
export const SHORT_NAME = "swh";
/**
 * Categories of the resource: `kubectl get all` lists SWHs next to the Services they make, and
 * `kubectl get networking` lists them with other networking resources that join that category.
 */
export const CATEGORIES: readonly string[] = ["all", "networking"];

/** Value of `endpointslice.kubernetes.io/managed-by` on every EndpointSlice the agent writes. */
export const MANAGED_BY = "service-with-healthchecks.network.deckhouse.io";
/** Name of the controller's field manager for server-side apply and patches. */
export const FIELD_MANAGER_CONTROLLER = "swh-controller";
/** Name of the agent's field manager for server-side apply and patches. */
export const FIELD_MANAGER_AGENT = "swh-agent";

/** Standard label binding an EndpointSlice to its Service. */
export const LABEL_SERVICE_NAME = "kubernetes.io/service-name";
/**
 * Our label on every Service the controller creates or adopts (value `MANAGED_BY`), so that agents watch only those
 * Services (`MANAGED_SERVICE_SELECTOR`). A watch filter, never proof of ownership: a tenant can set or remove it on
 * their own Services, so the agent still checks the controller reference (ADR 0014, ADR 0025).
 */
export const LABEL_MANAGED_SERVICE = "network.deckhouse.io/swh-managed-service";
/** Label selector of the Services the controller manages. */
export const MANAGED_SERVICE_SELECTOR = `${LABEL_MANAGED_SERVICE}=${MANAGED_BY}`;
/** Standard label naming the writer of an EndpointSlice. */
export const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
/** Our label on an EndpointSlice: the node whose agent owns it. */
export const LABEL_NODE = "network.deckhouse.io/swh-node";
/** Our label on an EndpointSlice: the Service port name it carries ("" for an unnamed port is stored as "_"). */
export const LABEL_PORT = "network.deckhouse.io/swh-port";
/** Our label on an EndpointSlice: its address family ("IPv4" | "IPv6"). */
export const LABEL_ADDRESS_FAMILY = "network.deckhouse.io/swh-address-family";
/** Service label copied onto slices of a headless Service. */
export const LABEL_HEADLESS = "service.kubernetes.io/headless";
/** Service label copied onto slices so an alternative service proxy picks them. */
export const LABEL_SERVICE_PROXY_NAME = "service.kubernetes.io/service-proxy-name";
/** Node label giving the zone of endpoints on that node. */
export const LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone";

/** Annotation on the child Service listing the label keys the controller propagated (JSON array). */
export const ANNOTATION_PROPAGATED_LABELS = "network.deckhouse.io/swh-propagated-labels";
/** Annotation on the child Service listing the annotation keys the controller propagated (JSON array). */
export const ANNOTATION_PROPAGATED_ANNOTATIONS = "network.deckhouse.io/swh-propagated-annotations";
/**
 * Annotation on the child Service carrying the SWH's spec as the agents read it (ADR 0032): JSON
 * `{ "uid": "<SWH uid>", "generation": <n>, "spec": { ... } }`, written by the controller only. Agents read SWH
 * specs from the Services they already watch instead of watching SWHs, whose status the controller rewrites on
 * every endpoint change: a status write no longer reaches every agent of the cluster.
 */
export const ANNOTATION_SWH_SPEC = "network.deckhouse.io/swh-spec";
/** Annotations never propagated from an SWH to its Service. */
export const NON_PROPAGATED_ANNOTATIONS: readonly string[] = [
  "kubectl.kubernetes.io/last-applied-configuration",
  "meta.helm.sh/release-name",
  "meta.helm.sh/release-namespace",
  ANNOTATION_SWH_SPEC,
];

/**
 * Annotation on an agent-written EndpointSlice telling the controller why endpoints are not serving. Its value
 * is a JSON object keyed by endpoint address, listing only the addresses failing a probe of the slice's port:
 * `{ "<address>": { "probe": "<which probe>", "reason": "<ProbeFailureReason>", "message": "<text>",
 * "target"?: "<probe target id>" } }`. A slice without failing endpoints carries no annotation. `target` lets a
 * restarted agent start from the published reason; readers must ignore keys they do not know.
 */
export const ANNOTATION_ENDPOINT_REASONS = "network.deckhouse.io/swh-endpoint-reasons";

/**
 * Annotation on an agent-written EndpointSlice: the full name of the node whose agent wrote it. Node names may
 * be 253 characters long while a label value holds 63, so the node label (`LABEL_NODE`) is only a server-side
 * selector (a hash for long names) and every reader takes the node from this annotation (ADR 0013).
 */
export const ANNOTATION_NODE_NAME = "network.deckhouse.io/swh-node-name";

/**
 * Pod annotation that drains the pod out of balancers without failing its checks: `*` takes it out of every SWH
 * that selects it, a comma-separated list of SWH names out of those (of the pod's namespace) only. Its endpoints
 * are published not ready (still `serving` while their checks pass) with the reason `Drained`; the checks go on,
 * so removing the annotation restores the pod at once, without waiting for thresholds.
 */
export const ANNOTATION_DRAIN = "network.deckhouse.io/swh-drain";

/**
 * Prefix of the pod readiness gate that waits on an SWH's checks: a pod whose `spec.readinessGates` lists the
 * condition type `swh.network.deckhouse.io/<swh-name>` (an SWH of the pod's namespace that selects it) gets that
 * condition from its node's agent: True once every port of the pod passes that SWH's checks, False with the
 * failing check's reason otherwise. The kubelet holds the pod's `Ready` until every gate is True, so a Deployment
 * rollout waits for the balancer's checks. The condition is written only when its status or reason changes.
 */
export const READINESS_GATE_PREFIX = "swh.network.deckhouse.io/";

/** Secret type holding PostgreSQL probe credentials. */
export const POSTGRES_CREDENTIALS_SECRET_TYPE = "network.deckhouse.io/postgresql-credentials";
/** Keys of a PostgreSQL credentials Secret. */
export const POSTGRES_CREDENTIALS_KEYS = {
  user: "user",
  password: "password",
  tlsMode: "tlsMode",
  clientCert: "clientCert",
  clientKey: "clientKey",
  caCert: "caCert",
} as const;
/** TLS modes of a PostgreSQL credentials Secret; missing means `SkipVerification` (as in the original). */
export const POSTGRES_TLS_MODES = ["Disabled", "SkipVerification", "VerifyCA", "VerifyAll"] as const;
/** One of `POSTGRES_TLS_MODES`: how a PostgreSQL probe uses TLS. */
export type PostgresTlsMode = (typeof POSTGRES_TLS_MODES)[number];

/**
 * Prefix of the per-node heartbeat Leases agents renew (in the agent's namespace): `swh-agent-<node>`, or a
 * prefix and a hash when that is longer than an object name; `spec.holderIdentity` names the node in full
 * (`agentLeaseName` in `@swh/node-liveness`, ADR 0013).
 */
export const AGENT_LEASE_PREFIX = "swh-agent-";
/** Name of the controller's leader-election Lease (in the controller's namespace). */
export const CONTROLLER_LEADER_LEASE = "swh-controller-leader";
/** Default maximum number of endpoints in one EndpointSlice. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;
