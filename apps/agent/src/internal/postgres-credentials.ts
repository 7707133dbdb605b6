import type { V1Secret } from "@kubernetes/client-node";
import {
  POSTGRES_CREDENTIALS_KEYS,
  POSTGRES_CREDENTIALS_SECRET_TYPE,
  POSTGRES_TLS_MODES,
  type PostgresTlsMode,
} from "@swh/crd-types";

/** PostgreSQL credentials read from a Secret of type `network.deckhouse.io/postgresql-credentials`. */
export interface PostgresCredentials {
  user: string;
  password?: string;
  tlsMode: PostgresTlsMode;
  clientCert?: string;
  clientKey?: string;
  caCert?: string;
}

/** The outcome of reading credentials: the credentials, or why the probe using them must fail. */
export type CredentialsResult =
  | { ok: true; credentials: PostgresCredentials }
  | { ok: false; reason: "CredentialsMissing" | "CredentialsInvalid"; message: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Reads PostgreSQL credentials from `secret` (undefined = not found in the cache of credentials Secrets).
 * Failures are data with the reason the endpoint status shows; the message names the Secret and the key but
 * never a secret value.
 */
export function readPostgresCredentials(
  secret: V1Secret | undefined,
  ref: { namespace: string; name: string },
): CredentialsResult {
  const where = `Secret ${ref.namespace}/${ref.name}`;
  if (!secret) {
    return {
      ok: false,
      reason: "CredentialsMissing",
      message: `${where} of type ${POSTGRES_CREDENTIALS_SECRET_TYPE} not found`,
    };
  }
  if (secret.type !== POSTGRES_CREDENTIALS_SECRET_TYPE) {
    return {
      ok: false,
      reason: "CredentialsInvalid",
      message: `${where} has type "${secret.type ?? ""}", want ${POSTGRES_CREDENTIALS_SECRET_TYPE}`,
    };
  }
  const values: Partial<Record<keyof typeof POSTGRES_CREDENTIALS_KEYS, string>> = {};
  for (const [field, key] of Object.entries(POSTGRES_CREDENTIALS_KEYS) as [
    keyof typeof POSTGRES_CREDENTIALS_KEYS,
    string,
  ][]) {
    const encoded = secret.data?.[key];
    const plain = secret.stringData?.[key];
    if (encoded !== undefined) {
      if (!BASE64.test(encoded)) {
        return { ok: false, reason: "CredentialsInvalid", message: `${where}: key "${key}" is not base64` };
      }
      values[field] = Buffer.from(encoded, "base64").toString("utf8");
    } else if (plain !== undefined) {
      values[field] = plain;
    }
  }
  if (!values.user) {
    return { ok: false, reason: "CredentialsInvalid", message: `${where}: key "user" is missing or empty` };
  }
  const tlsMode = values.tlsMode || "SkipVerification";
  if (!(POSTGRES_TLS_MODES as readonly string[]).includes(tlsMode)) {
    return {
      ok: false,
      reason: "CredentialsInvalid",
      message: `${where}: key "tlsMode" must be one of ${POSTGRES_TLS_MODES.join(", ")}, got "${tlsMode}"`,
    };
  }
  if (Boolean(values.clientCert) !== Boolean(values.clientKey)) {
    return {
      ok: false,
      reason: "CredentialsInvalid",
      message: `${where}: keys "clientCert" and "clientKey" must be set together`,
    };
  }
  const credentials: PostgresCredentials = { user: values.user, tlsMode: tlsMode as PostgresTlsMode };
  if (values.password) credentials.password = values.password;
  if (values.clientCert) credentials.clientCert = values.clientCert;
  if (values.clientKey) credentials.clientKey = values.clientKey;
  if (values.caCert) credentials.caCert = values.caCert;
  return { ok: true, credentials };
}
