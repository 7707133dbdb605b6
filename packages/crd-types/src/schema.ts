/**
 * The OpenAPI v3 schema of ServiceWithHealthchecks: the single source of truth from which `crdManifest()`,
 * `applyDefaults()` and `validate()` follow. Split by part under `internal/` to keep files readable.
 */
import { healthcheckSchema } from "./internal/schema-healthcheck.js";
import { celRule, type SchemaNode } from "./internal/schema-node.js";
import { serviceFieldsProperties, serviceFieldsRules } from "./internal/schema-service.js";
import { statusSchema } from "./internal/schema-status.js";

const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Schema of `spec`. */
export const specSchema: SchemaNode = {
  type: "object",
  description: "A Service spec plus active, per-port health checks.",
  properties: { ...serviceFieldsProperties, healthcheck: healthcheckSchema },
  "x-kubernetes-validations": serviceFieldsRules,
};

/** Schema of the whole resource (the CRD's `openAPIV3Schema`). */
export const serviceWithHealthchecksSchema: SchemaNode = {
  type: "object",
  description:
    "A load balancer with independent, active, per-port health checks: a Service whose endpoints are published by probes.",
  required: ["spec"],
  properties: {
    apiVersion: {
      type: "string",
      description: "Versioned schema of this object: network.deckhouse.io/v1alpha1.",
    },
    kind: { type: "string", description: "Kind of this object: ServiceWithHealthchecks." },
    // No description: the API server refuses anything on metadata but name rules, and publishes ObjectMeta's own.
    metadata: { type: "object" },
    spec: specSchema,
    status: statusSchema,
  },
  "x-kubernetes-validations": [
    {
      ...celRule<{ metadata: { name: string } }>(
        "size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        "metadata.name must be a DNS-1035 label (at most 63 lowercase letters, digits and '-', starting with a letter, ending alphanumeric) because it names the child Service",
        (o) => o.metadata.name.length <= 63 && DNS_1035_LABEL.test(o.metadata.name),
      ),
      reportedPath: "metadata.name",
    },
  ],
};
