/**
 * Port rules shared by the Service ports and the probes: a target port is a number 1..65535 or an IANA service
 * name (RFC 6335: lowercase letters, digits and single inner hyphens, at most 15 characters, at least one letter),
 * exactly the names a container port may carry.
 */
import { celRule, type SchemaNode } from "./schema-node.js";

const IANA_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const HAS_LETTER_RE = /[a-z]/;

/** Returns true when `value` is a port number 1..65535 or a valid IANA service name. */
function isPortNumberOrName(value: number | string): boolean {
  if (typeof value === "number") return Number.isInteger(value) && value >= 1 && value <= 65535;
  return value.length <= 15 && IANA_NAME_RE.test(value) && HAS_LETTER_RE.test(value);
}

/** Schema of an int-or-string target port (`targetPort` of a Service port or of a probe). */
export function targetPortSchema(field: string): SchemaNode {
  return {
    "x-kubernetes-int-or-string": true,
    // Bounds the string form so the CEL rule's estimated cost stays within the API server's budget.
    maxLength: 15,
    description: "Port number 1..65535, or an IANA port name resolved against the pod's container ports.",
    "x-kubernetes-validations": [
      celRule<number | string>(
        "type(self) == int ? (self >= 1 && self <= 65535) : (size(self) <= 15 && self.matches('^[a-z0-9]+(-[a-z0-9]+)*$') && self.matches('[a-z]'))",
        `${field} must be a port number 1..65535 or an IANA port name (lowercase letters, digits and single inner hyphens, at most 15 characters, at least one letter)`,
        isPortNumberOrName,
      ),
    ],
  };
}

/** Schema of a plain port number 1..65535. */
export function portNumberSchema(description: string): SchemaNode {
  return { type: "integer", format: "int32", minimum: 1, maximum: 65535, description };
}
