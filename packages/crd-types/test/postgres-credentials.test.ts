import type { V1Secret } from "@kubernetes/client-node";
import { POSTGRES_CREDENTIALS_SECRET_TYPE } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { readPostgresCredentials } from "../src/internal/postgres-credentials.js";

const ref = { namespace: "db", name: "pg-probe" };
const b64 = (s: string) => Buffer.from(s).toString("base64");

function aSecret(data: Record<string, string>, type = POSTGRES_CREDENTIALS_SECRET_TYPE): V1Secret {
  return {
    metadata: { name: "pg-probe", namespace: "db" },
    type,
    data: { password: b64("s3cret"), ...data },
  };
}

describe("readPostgresCredentials", () => {
  it("decodes the keys and defaults tlsMode to SkipVerification", () => {
    const result = readPostgresCredentials(aSecret({ user: b64("probe") }), ref);
    expect(result).toEqual({
      ok: true,
      credentials: { user: "probe", password: "s3cret", tlsMode: "SkipVerification" },
    });
  });

  it("reads client certificates and the CA", () => {
    const result = readPostgresCredentials(
      aSecret({
        user: b64("probe"),
        tlsMode: b64("VerifyAll"),
        clientCert: b64("CERT"),
        clientKey: b64("KEY"),
        caCert: b64("CA"),
        password: "",
      }),
      ref,
    );
    expect(result).toEqual({
      ok: true,
      credentials: {
        user: "probe",
        tlsMode: "VerifyAll",
        clientCert: "CERT",
        clientKey: "KEY",
        caCert: "CA",
      },
    });
  });

  it("reports a missing Secret as CredentialsMissing naming it", () => {
    expect(readPostgresCredentials(undefined, ref)).toEqual({
      ok: false,
      reason: "CredentialsMissing",
      message: `Secret db/pg-probe of type ${POSTGRES_CREDENTIALS_SECRET_TYPE} not found`,
    });
  });

  it.each([
    ["a wrong type", aSecret({ user: b64("u") }, "Opaque"), /has type "Opaque"/],
    ["no user", aSecret({}), /key "user" is missing/],
    [
      "an unknown tlsMode",
      aSecret({ user: b64("u"), tlsMode: b64("Maybe") }),
      /key "tlsMode" must be one of/,
    ],
    ["a cert without key", aSecret({ user: b64("u"), clientCert: b64("C") }), /set together/],
    ["undecodable data", aSecret({ user: "!!!" }), /key "user" is not base64/],
  ])("reports %s as CredentialsInvalid without leaking values", (_, secret, message) => {
    const result = readPostgresCredentials(secret, ref);
    expect(result).toMatchObject({ ok: false, reason: "CredentialsInvalid" });
    if (!result.ok) {
      expect(result.message).toMatch(message);
      expect(result.message).not.toContain("s3cret");
    }
  });
});
