/**
 * The PostgreSQL credentials Secret (type `network.deckhouse.io/postgresql-credentials`, SPEC §2.2) as one format
 * with its writer and its reader: `postgresCredentialsSecret()` builds the Secret a user applies,
 * `readPostgresCredentials()` is how the agent reads it back. Both apply the same rules (`credentialsProblem`),
 * so a Secret the builder accepts is never one the agent refuses. Messages name keys, never values.
 */

import type { ManifestMeta } from "./builders.js";
import {
  POSTGRES_CREDENTIALS_KEYS,
  POSTGRES_CREDENTIALS_SECRET_TYPE,
  POSTGRES_TLS_MODES,
  type PostgresTlsMode,
} from "./constants.js";
import type { ProbeFailureReason } from "./reasons.js";

/** Credentials a PostgreSQL probe logs in with (PEM strings for the certificates and the key). */
export interface PostgresCredentials {
  user: string;
  password?: string;
  /** Missing = `SkipVerification`: TLS required, certificate not checked (as in the original). */
  tlsMode?: PostgresTlsMode;
  /** Client certificate (PEM); requires `clientKey`. */
  clientCert?: string;
  /** Client private key (PEM); requires `clientCert`. */
  clientKey?: string;
  /** CA certificate(s) (PEM) the server's certificate is checked against (`VerifyCA`, `VerifyAll`). */
  caCert?: string;
}

/** A credentials Secret as the builder writes it (core/v1 Secret shape, values in `stringData`). */
export interface PostgresCredentialsSecret {
  apiVersion: "v1";
  kind: "Secret";
  metadata: ManifestMeta;
  type: typeof POSTGRES_CREDENTIALS_SECRET_TYPE;
  stringData: Partial<Record<keyof typeof POSTGRES_CREDENTIALS_KEYS, string>>;
}

/** The parts of a Secret (core/v1 shape) the reader looks at; `@kubernetes/client-node`'s V1Secret fits. */
export interface SecretView {
  type?: string | undefined;
  data?: Readonly<Record<string, string>> | undefined;
  stringData?: Readonly<Record<string, string>> | undefined;
}

/** Thrown by `postgresCredentialsSecret` for credentials the agent would refuse; `key` names the Secret key. */
export class InvalidPostgresCredentialsError extends Error {
  readonly key: keyof typeof POSTGRES_CREDENTIALS_KEYS;

  constructor(key: keyof typeof POSTGRES_CREDENTIALS_KEYS, message: string) {
    super(message);
    this.name = "InvalidPostgresCredentialsError";
    this.key = key;
  }
}

/** What reading credentials gives: the credentials, or why a probe using them fails. */
export type PostgresCredentialsReading =
  | { ok: true; credentials: PostgresCredentials & { tlsMode: PostgresTlsMode } }
  | {
      ok: false;
      reason: Extract<ProbeFailureReason, "CredentialsMissing" | "CredentialsInvalid">;
      message: string;
    };

type Values = Partial<Record<keyof typeof POSTGRES_CREDENTIALS_KEYS, string>>;

/**
 * The first rule `values` (the Secret's keys, decoded) break, naming the key; undefined when they are usable. An
 * empty value counts as missing.
 */
function credentialsProblem(
  values: Values,
): { key: keyof typeof POSTGRES_CREDENTIALS_KEYS; message: string } | undefined {
  if (!values.user) return { key: "user", message: 'key "user" is missing or empty' };
  const tlsMode = values.tlsMode || "SkipVerification";
  if (!(POSTGRES_TLS_MODES as readonly string[]).includes(tlsMode)) {
    return {
      key: "tlsMode",
      message: `key "tlsMode" must be one of ${POSTGRES_TLS_MODES.join(", ")}, got "${tlsMode}"`,
    };
  }
  if (Boolean(values.clientCert) !== Boolean(values.clientKey)) {
    return {
      key: values.clientCert ? "clientKey" : "clientCert",
      message: 'keys "clientCert" and "clientKey" must be set together',
    };
  }
  return undefined;
}

/**
 * Returns the credentials Secret `meta` names, holding `credentials` (copied; unset and empty values are left
 * out). Throws `InvalidPostgresCredentialsError` naming the key when the agent would refuse the Secret.
 */
export function postgresCredentialsSecret(
  meta: ManifestMeta,
  credentials: Readonly<PostgresCredentials>,
): PostgresCredentialsSecret {
  const stringData: Values = {};
  for (const field of Object.keys(POSTGRES_CREDENTIALS_KEYS) as (keyof typeof POSTGRES_CREDENTIALS_KEYS)[]) {
    const value: unknown = credentials[field];
    if (value === undefined || value === "") continue;
    if (typeof value !== "string") {
      throw new InvalidPostgresCredentialsError(field, `key "${field}" must be a string`);
    }
    stringData[field] = value;
  }
  const problem = credentialsProblem(stringData);
  if (problem) throw new InvalidPostgresCredentialsError(problem.key, problem.message);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: structuredClone(meta),
    type: POSTGRES_CREDENTIALS_SECRET_TYPE,
    stringData,
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Reads PostgreSQL credentials from `secret` (undefined = not found among the credentials Secrets the agent
 * sees), `ref` naming it for messages. `data` (base64, what the API server returns) wins over `stringData`.
 * Failures are data with the reason the endpoint status shows.
 */
export function readPostgresCredentials(
  secret: Readonly<SecretView> | undefined,
  ref: { namespace: string; name: string },
): PostgresCredentialsReading {
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
  const values: Values = {};
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
  const problem = credentialsProblem(values);
  if (problem) return { ok: false, reason: "CredentialsInvalid", message: `${where}: ${problem.message}` };
  const credentials: PostgresCredentials & { tlsMode: PostgresTlsMode } = {
    user: values.user as string,
    tlsMode: (values.tlsMode || "SkipVerification") as PostgresTlsMode,
  };
  if (values.password) credentials.password = values.password;
  if (values.clientCert) credentials.clientCert = values.clientCert;
  if (values.clientKey) credentials.clientKey = values.clientKey;
  if (values.caCert) credentials.caCert = values.caCert;
  return { ok: true, credentials };
}
