import { createServer, type Server, type Socket } from "node:net";
import type { V1Secret } from "@kubernetes/client-node";
import type { ProbeTarget } from "@swh/aggregation";
import { POSTGRES_CREDENTIALS_SECRET_TYPE } from "@swh/crd-types";
import { type PostgresCredentials, probeBySpec } from "@swh/probes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsLookup } from "../src/internal/credentials-secrets.js";
import { runProbe } from "../src/internal/run-probe.js";
import { aPostgresProbe, aTcpProbe } from "./builders.js";

function aTarget(probe: ProbeTarget["probe"], port: number): ProbeTarget {
  return {
    id: "t",
    address: "127.0.0.1",
    port,
    probe,
    namespace: "db",
    pod: { name: "pg-0", namespace: "db", uid: "u" },
    initialDelaySeconds: 0,
    periodSeconds: 1,
  };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
// The caches of an agent that may read Secrets in namespace "db" only.
const secretIn =
  (secrets: Record<string, V1Secret>) =>
  (namespace: string, name: string): CredentialsLookup =>
    namespace === "db"
      ? { permitted: true, secret: secrets[`${namespace}/${name}`] }
      : { permitted: false, message: `the agent may not read Secrets in namespace ${namespace}` };

describe("runProbe", () => {
  let server: Server;
  let port: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy()); // a TCP probe ends with a reset (ADR 0044)
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("probes the target's own address and resolved port", async () => {
    const result = await runProbe(aTarget(aTcpProbe("http"), port), new AbortController().signal, {
      probe: probeBySpec,
      credentials: secretIn({}),
    });
    expect(result.ok).toBe(true);
  });

  it("fails a PostgreSQL probe with CredentialsMissing when its Secret is absent, without connecting", async () => {
    const seen: unknown[] = [];
    const result = await runProbe(
      aTarget(aPostgresProbe(port, "pg-creds"), port),
      new AbortController().signal,
      {
        probe: (...args) => {
          seen.push(args);
          return probeBySpec(...args);
        },
        credentials: secretIn({}),
      },
    );
    expect(result).toMatchObject({ ok: false, reason: "CredentialsMissing" });
    expect(result.message).toContain("db/pg-creds");
    expect(seen).toEqual([]);
  });

  it("fails with CredentialsMissing when no Secret is named", async () => {
    const result = await runProbe(aTarget(aPostgresProbe(port), port), new AbortController().signal, {
      probe: probeBySpec,
      credentials: secretIn({}),
    });
    expect(result).toMatchObject({ ok: false, reason: "CredentialsMissing" });
  });

  it("fails with CredentialsNotPermitted, without connecting, in a namespace the agent may not read", async () => {
    const seen: unknown[] = [];
    const target = { ...aTarget(aPostgresProbe(port, "pg-creds"), port), namespace: "team-b" };
    const secret: V1Secret = { type: POSTGRES_CREDENTIALS_SECRET_TYPE, data: { user: b64("probe") } };
    const result = await runProbe(target, new AbortController().signal, {
      probe: (...args) => {
        seen.push(args);
        return probeBySpec(...args);
      },
      credentials: secretIn({ "team-b/pg-creds": secret }),
    });
    expect(result).toMatchObject({ ok: false, reason: "CredentialsNotPermitted" });
    expect(result.message).toContain("namespace team-b");
    expect(seen).toEqual([]);
  });

  it("fails with CredentialsInvalid on a Secret it cannot use", async () => {
    const secret: V1Secret = { type: POSTGRES_CREDENTIALS_SECRET_TYPE, data: { password: b64("x") } };
    const result = await runProbe(
      aTarget(aPostgresProbe(port, "pg-creds"), port),
      new AbortController().signal,
      {
        probe: probeBySpec,
        credentials: secretIn({ "db/pg-creds": secret }),
      },
    );
    expect(result).toMatchObject({ ok: false, reason: "CredentialsInvalid" });
  });

  it("hands the Secret's credentials to the probe, reading the Secret of the pod's namespace", async () => {
    const secret: V1Secret = {
      type: POSTGRES_CREDENTIALS_SECRET_TYPE,
      data: { user: b64("probe"), password: b64("pw"), tlsMode: b64("Disabled") },
    };
    let credentials: PostgresCredentials | undefined;
    await runProbe(aTarget(aPostgresProbe(port, "pg-creds"), port), new AbortController().signal, {
      probe: (address, spec, opts) => {
        credentials = opts?.postgresCredentials;
        return probeBySpec(address, spec, opts);
      },
      credentials: secretIn({ "db/pg-creds": secret }),
    });
    expect(credentials).toEqual({ user: "probe", password: "pw", tlsMode: "Disabled" });
  });
});
