/**
 * Schema of `spec.healthcheck` (SPEC §2.2): timing, and the probes with exactly one sub-object matching `mode`
 * (the original module crashed on a mismatch; here the API server refuses it). A probe's timeout is bounded
 * (ADR 0016): a probe slot held by a target that never answers is given back within a minute and before the
 * target's next probe is due.
 */
import { hasOnlyPodIdentityReferences, POD_IDENTITY_RULE, podIdentityRuleMessage } from "../pod-identity.js";
import type { HealthcheckSpec, HttpBodyMatch, HttpProbeSpec, ProbeSpec } from "../types.js";
import { targetPortSchema } from "./port-rules.js";
import { celRule, type SchemaNode } from "./schema-node.js";

/** Most probes one resource may declare. */
export const MAX_PROBES = 32;
/** Longest accepted delay or period: 30 hours, as in the original module. */
const MAX_SECONDS = 108000;
/** Longest accepted probe timeout (kubelet probes have none; ADR 0016 says why this one). */
export const MAX_TIMEOUT_SECONDS = 60;
/** Defaults of `periodSeconds` and of a probe's `timeoutSeconds`. */
export const DEFAULT_PERIOD_SECONDS = 10;
export const DEFAULT_TIMEOUT_SECONDS = 1;

/**
 * What a gRPC probe's `host` may be: an RFC 3986 authority without userinfo (a name, IPv4 or [IPv6], optional
 * port), since it is sent as `:authority`. The probe engine checks the same pattern for callers without a schema.
 */
export const GRPC_AUTHORITY_PATTERN = "^([A-Za-z0-9_.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$";

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const HTTP_TOKEN = "^[-!#$%&'*+.^_`|~0-9A-Za-z]+$";

const positiveInt = (description: string, dflt: number, maximum?: number): SchemaNode => ({
  type: "integer",
  format: "int32",
  minimum: 1,
  ...(maximum === undefined ? {} : { maximum }),
  default: dflt,
  description,
});

/** Longest text to look for in an answer (HTTP body, TCP response), well inside the 4 KiB read. */
const MAX_MATCH_LENGTH = 1024;

/** The rule of a text that may name the pod (ADR 0036): only the pod identity variables may be referenced. */
const podIdentityRule = (field: string) =>
  celRule<string>(POD_IDENTITY_RULE, podIdentityRuleMessage(field), hasOnlyPodIdentityReferences);

/** Text that may name the pod: `$(POD_NAME)`, `$(POD_NAMESPACE)`, `$(POD_UID)`. */
const identityText = (field: string, description: string, minLength = 1): SchemaNode => ({
  type: "string",
  ...(minLength > 0 ? { minLength } : {}),
  maxLength: MAX_MATCH_LENGTH,
  description: `${description} May reference $(POD_NAME), $(POD_NAMESPACE) and $(POD_UID).`,
  "x-kubernetes-validations": [podIdentityRule(field)],
});

const tcp: SchemaNode = {
  type: "object",
  required: ["targetPort"],
  description:
    "TCP probe: success when a connection is accepted and, with expect, the server's first 4 KiB contain it (reason TCPResponse otherwise).",
  properties: {
    targetPort: targetPortSchema("tcp.targetPort"),
    send: identityText("tcp.send", 'Text written once the connection opens (e.g. "PING\\r\\n").'),
    expect: identityText(
      "tcp.expect",
      "Text the server's answer must contain within its first 4 KiB (a substring, not a regular expression).",
    ),
  },
};

const bodyText = (field: string, description: string): SchemaNode => identityText(field, description);

const body: SchemaNode = {
  type: "object",
  description:
    "Expectation on the first 4 KiB of the response body (substrings, not regular expressions); GET only. A mismatch fails the probe with reason HTTPBody.",
  properties: {
    contains: bodyText("http.body.contains", "The body must contain this text."),
    notContains: bodyText("http.body.notContains", "The body must not contain this text."),
  },
  "x-kubernetes-validations": [
    celRule<HttpBodyMatch>(
      "has(self.contains) || has(self.notContains)",
      "http.body needs contains or notContains",
      (b) => b.contains !== undefined || b.notContains !== undefined,
    ),
  ],
};

/** A header's name in `httpHeaders` and `responseHeaders`. */
const headerName: SchemaNode = {
  type: "string",
  minLength: 1,
  maxLength: 256,
  pattern: HTTP_TOKEN,
  description: "Header name (an HTTP token).",
};

const http: SchemaNode = {
  type: "object",
  required: ["targetPort"],
  description: "HTTP(S) probe against the pod IP. Redirects are never followed.",
  properties: {
    targetPort: targetPortSchema("http.targetPort"),
    path: {
      type: "string",
      maxLength: 2048,
      default: "/",
      description: "Request path; must start with '/'.",
      "x-kubernetes-validations": [
        celRule<string>("self.startsWith('/')", "http.path must start with '/'", (p) => p.startsWith("/")),
      ],
    },
    host: {
      type: "string",
      maxLength: 253,
      description: "Host header and TLS server name only; the connection always goes to the pod IP.",
    },
    scheme: { type: "string", enum: ["HTTP", "HTTPS"], default: "HTTP", description: "Scheme." },
    method: { type: "string", enum: ["GET", "HEAD"], default: "GET", description: "Method." },
    httpHeaders: {
      type: "array",
      maxItems: 32,
      description: "Extra request headers.",
      items: {
        type: "object",
        required: ["name", "value"],
        properties: {
          name: headerName,
          value: { type: "string", maxLength: 4096, description: "Header value." },
        },
      },
    },
    responseHeaders: {
      type: "array",
      maxItems: 16,
      description:
        "Headers the response must carry, each with exactly this value (names case-insensitive); a mismatch fails with reason HTTPHeader.",
      items: {
        type: "object",
        required: ["name", "value"],
        properties: {
          name: headerName,
          value: identityText("http.responseHeaders[].value", "The value the header must have.", 0),
        },
      },
    },
    insecureSkipTLSVerify: {
      type: "boolean",
      default: false,
      description: "Accept any server certificate (HTTPS).",
    },
    caCert: {
      type: "string",
      maxLength: 65536,
      description: "PEM CA bundle to verify the server certificate with (HTTPS).",
    },
    code: {
      type: "array",
      maxItems: 100,
      description: "Accepted status codes; missing or empty means 200..399.",
      items: { type: "integer", format: "int32", minimum: 100, maximum: 599 },
    },
    body,
  },
  "x-kubernetes-validations": [
    // A HEAD response has no body, so a body expectation on it could never pass.
    celRule<HttpProbeSpec>(
      "!has(self.body) || !has(self.method) || self.method == 'GET'",
      "http.body needs method GET (a HEAD response has no body)",
      (h) => h.body === undefined || (h.method ?? "GET") === "GET",
    ),
  ],
};

const postgreSQL: SchemaNode = {
  type: "object",
  required: ["targetPort"],
  description: "PostgreSQL probe: success when the first column of the first row of `query` is true.",
  properties: {
    targetPort: targetPortSchema("postgreSQL.targetPort"),
    dbName: { type: "string", maxLength: 63, description: "Database to connect to." },
    query: {
      type: "string",
      minLength: 1,
      maxLength: 4096,
      default: "select 1",
      description: "Query whose first column of the first row must be true.",
    },
    authSecretName: {
      type: "string",
      maxLength: 253,
      pattern: DNS_SUBDOMAIN,
      description: "Secret of type network.deckhouse.io/postgresql-credentials in the same namespace.",
    },
  },
};

const grpc: SchemaNode = {
  type: "object",
  required: ["targetPort"],
  description:
    "gRPC health probe (grpc.health.v1.Health/Check) against the pod IP: success when the service is SERVING.",
  properties: {
    targetPort: targetPortSchema("grpc.targetPort"),
    service: {
      type: "string",
      maxLength: 1024,
      description:
        "Service name sent in the HealthCheckRequest; missing or empty asks about the server as a whole.",
    },
    host: {
      type: "string",
      maxLength: 253,
      pattern: GRPC_AUTHORITY_PATTERN,
      description:
        ":authority and TLS server name only (a host name or [IPv6], optional :port); the connection always goes to the pod IP.",
    },
    tls: { type: "boolean", default: false, description: "Speak TLS (ALPN h2) instead of plaintext HTTP/2." },
    insecureSkipTLSVerify: {
      type: "boolean",
      default: false,
      description: "Accept any server certificate (tls).",
    },
    caCert: {
      type: "string",
      maxLength: 65536,
      description: "PEM CA bundle to verify the server certificate with (tls).",
    },
  },
};

/** The sub-object each mode needs; every mode's rule forbids the others' sub-objects. */
const SUB_OBJECTS = { TCP: "tcp", HTTP: "http", PostgreSQL: "postgreSQL", GRPC: "grpc" } as const;

function modeRule(mode: keyof typeof SUB_OBJECTS) {
  const key = SUB_OBJECTS[mode];
  const others = Object.values(SUB_OBJECTS).filter((k) => k !== key);
  return celRule<ProbeSpec>(
    `self.mode != '${mode}' || (has(self.${key}) && ${others.map((o) => `!has(self.${o})`).join(" && ")})`,
    `mode ${mode} requires the ${key} sub-object and no other (${others.join(", ")} must not be set)`,
    (p) => p.mode !== mode || (p[key] !== undefined && others.every((o) => p[o] === undefined)),
  );
}

const probe: SchemaNode = {
  type: "object",
  required: ["mode"],
  properties: {
    mode: {
      type: "string",
      enum: ["TCP", "HTTP", "PostgreSQL", "GRPC"],
      description: "Kind of probe; the sub-object of the same name must be set.",
    },
    timeoutSeconds: positiveInt(
      `Seconds before one probe attempt fails; at most ${MAX_TIMEOUT_SECONDS} and at most periodSeconds.`,
      DEFAULT_TIMEOUT_SECONDS,
      MAX_TIMEOUT_SECONDS,
    ),
    successThreshold: positiveInt("Consecutive successes to start serving.", 1),
    failureThreshold: positiveInt("Consecutive failures to stop serving.", 3),
    tcp,
    http,
    postgreSQL,
    grpc,
  },
  "x-kubernetes-validations": [modeRule("TCP"), modeRule("HTTP"), modeRule("PostgreSQL"), modeRule("GRPC")],
};

/** Schema of `spec.healthcheck`. */
export const healthcheckSchema: SchemaNode = {
  type: "object",
  default: {},
  description: "Active health checks; each Service port is gated by the probes on its target port.",
  properties: {
    initialDelaySeconds: {
      type: "integer",
      format: "int32",
      minimum: 0,
      maximum: MAX_SECONDS,
      default: 10,
      description: "Seconds after a pod became eligible (Running with an IP) before probing starts.",
    },
    periodSeconds: {
      type: "integer",
      format: "int32",
      minimum: 1,
      maximum: MAX_SECONDS,
      default: DEFAULT_PERIOD_SECONDS,
      description: "Seconds between two probes of one target.",
    },
    transitionPeriodSeconds: {
      type: "integer",
      format: "int32",
      minimum: 1,
      maximum: MAX_SECONDS,
      description:
        "Seconds between two probes of a target while its result is changing (between thresholds); missing: periodSeconds.",
    },
    downPeriodSeconds: {
      type: "integer",
      format: "int32",
      minimum: 1,
      maximum: MAX_SECONDS,
      description:
        "Seconds between two probes of a target that is down (failing after it passed); missing: periodSeconds.",
    },
    failOpen: {
      type: "object",
      description:
        "Fail-open per Service port: while too few of a port's endpoints pass their checks across the cluster, its failing endpoints are published as if passing (never drained, terminating, not yet probed ones, or probes that cannot run). Condition ChecksEnforced says when.",
      properties: {
        healthyBelowPercent: {
          type: "integer",
          format: "int32",
          minimum: 1,
          maximum: 100,
          description:
            "Fail open while fewer than this percentage of the port's judged endpoints pass; missing: only while none passes.",
        },
      },
    },
    probes: {
      type: "array",
      maxItems: MAX_PROBES,
      default: [],
      description: "Probes; none means the ports follow pod readiness, like a plain Service.",
      items: probe,
    },
  },
  "x-kubernetes-validations": [
    // Defaults make both fields present; the guards keep an object stored without them evaluable.
    celRule<HealthcheckSpec>(
      `!has(self.probes) || self.probes.all(p, (has(p.timeoutSeconds) ? p.timeoutSeconds : ${DEFAULT_TIMEOUT_SECONDS}) <= (has(self.periodSeconds) ? self.periodSeconds : ${DEFAULT_PERIOD_SECONDS}))`,
      "probes[].timeoutSeconds must be at most periodSeconds: a probe must end before the next probe of its target is due",
      (h) =>
        (h.probes ?? []).every(
          (p) => (p.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) <= (h.periodSeconds ?? DEFAULT_PERIOD_SECONDS),
        ),
      ".probes",
    ),
    ...(["transitionPeriodSeconds", "downPeriodSeconds"] as const).map((field) =>
      celRule<HealthcheckSpec>(
        `!has(self.${field}) || !has(self.probes) || self.probes.all(p, (has(p.timeoutSeconds) ? p.timeoutSeconds : ${DEFAULT_TIMEOUT_SECONDS}) <= self.${field})`,
        `probes[].timeoutSeconds must be at most ${field}: a probe must end before the next probe of its target is due`,
        (h) =>
          h[field] === undefined ||
          (h.probes ?? []).every(
            (p) => (p.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) <= (h[field] as number),
          ),
        `.${field}`,
      ),
    ),
  ],
};
