import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InvalidPostgresCredentialsError,
  POSTGRES_CREDENTIALS_SECRET_TYPE,
  POSTGRES_TLS_MODES,
  type PostgresCredentials,
  postgresCredentialsSecret,
  readPostgresCredentials,
  type SecretView,
} from "../src/index.js";

const ref = { namespace: "db", name: "pg-probe" };
const b64 = (s: string) => Buffer.from(s).toString("base64");

function aSecret(data: Record<string, string>, type: string = POSTGRES_CREDENTIALS_SECRET_TYPE): SecretView {
  return {
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

describe("postgresCredentialsSecret", () => {
  it("builds a typed Secret of the credentials type with the given keys only", () => {
    expect(
      postgresCredentialsSecret(
        { name: "pg-probe", namespace: "db" },
        { user: "probe", password: "s3cret", tlsMode: "VerifyCA", caCert: "CA" },
      ),
    ).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "pg-probe", namespace: "db" },
      type: POSTGRES_CREDENTIALS_SECRET_TYPE,
      stringData: { user: "probe", password: "s3cret", tlsMode: "VerifyCA", caCert: "CA" },
    });
  });

  it.each<[string, PostgresCredentials, string]>([
    ["no user", { user: "" }, "user"],
    ["an unknown tlsMode", { user: "u", tlsMode: "Maybe" as never }, "tlsMode"],
    ["a certificate without its key", { user: "u", clientCert: "C" }, "clientKey"],
    ["a key without its certificate", { user: "u", clientKey: "K" }, "clientCert"],
    ["a value that is no string", { user: "u", password: 42 as never }, "password"],
  ])("refuses %s, naming the key and no value", (_, credentials, key) => {
    const build = () => postgresCredentialsSecret({ name: "pg" }, { ...credentials, password: "s3cret" });
    const plain = () => postgresCredentialsSecret({ name: "pg" }, credentials);
    const error = (() => {
      try {
        (key === "password" ? plain : build)();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidPostgresCredentialsError);
    expect((error as InvalidPostgresCredentialsError).key).toBe(key);
    expect((error as Error).message).toContain(`"${key}"`);
    expect((error as Error).message).not.toContain("s3cret");
  });

  it("writes what the agent reads back, as written and as the API server returns it (base64 data)", () => {
    const text = fc.string({ minLength: 1, maxLength: 40 });
    const credentials = fc.record(
      {
        user: text,
        password: text,
        tlsMode: fc.constantFrom(...POSTGRES_TLS_MODES),
        caCert: text,
        pair: fc.record({ clientCert: text, clientKey: text }),
      },
      { requiredKeys: ["user"] },
    );
    fc.assert(
      fc.property(credentials, ({ pair, ...rest }) => {
        const input: PostgresCredentials = { ...rest, ...pair };
        const secret = postgresCredentialsSecret({ name: "pg", namespace: "db" }, input);
        const expected = { tlsMode: "SkipVerification", ...input };
        const asWritten = readPostgresCredentials(secret, ref);
        const stored = Object.fromEntries(
          Object.entries(secret.stringData).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
        );
        const asStored = readPostgresCredentials({ type: secret.type, data: stored }, ref);
        expect(asWritten).toEqual({ ok: true, credentials: expected });
        expect(asStored).toEqual({ ok: true, credentials: expected });
      }),
    );
  });
});
