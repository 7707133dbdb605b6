/**
 * PostgreSQL probe: connect with the resolved credentials, run one query under a statement timeout, and judge
 * its first value (SPEC §2.2). The connection is destroyed at the deadline whatever phase it is in.
 */
import type { PostgresCredentials } from "@swh/crd-types";
import type pg from "pg";
import { type Attempt, runAttempt } from "./internal/attempt.js";
import { checkAddress } from "./internal/check-address.js";
import { guardStream, PROTOCOL_PARSE_FAILED, RESPONSE_TOO_LARGE } from "./internal/guard-stream.js";
import { isTruthyQueryValue } from "./internal/query-truthiness.js";
import { describeError, reasonForSocketError } from "./internal/socket-errors.js";
import {
  type ProbeAddress,
  ProbeConfigError,
  type ProbeOptions,
  type ProbeReason,
  type ProbeResult,
} from "./probe-result.js";

/**
 * What a PostgreSQL probe logs in with: user, password, TLS mode, PEM certificates. `@swh/crd-types` owns the shape
 * (it is also the format of the agent's credentials Secret); how the caller finds them is its own business.
 */
export type { PostgresCredentials };

/** PostgreSQL probe settings: database, query (default `select 1`) and the resolved credentials. */
export interface PostgresProbeConfig {
  dbName?: string;
  query?: string;
  credentials: PostgresCredentials;
}

/** pg is loaded by the first PostgreSQL probe: loading it costs about 12 MB of RSS, which a process that never
 * probes PostgreSQL (most agents, TCP/HTTP-only users of this package) should not pay. */
let pgModule: Promise<typeof pg> | undefined;
function loadPg(): Promise<typeof pg> {
  pgModule ??= import("pg").then((m) => m.default);
  return pgModule;
}

/** Bound on bytes a server may send during one probe (a health query's answer is tiny). */
const MAX_POSTGRES_RESPONSE_BYTES = 1024 * 1024;

type SslOption =
  | false
  | {
      rejectUnauthorized: boolean;
      ca?: string;
      cert?: string;
      key?: string;
      checkServerIdentity?: () => undefined;
    };

/** Maps a TLS mode to pg's `ssl` option; throws `ProbeConfigError` on an unknown mode or a half client pair. */
function postgresSslOption(credentials: PostgresCredentials): SslOption {
  const mode = credentials.tlsMode ?? "SkipVerification";
  if (Boolean(credentials.clientCert) !== Boolean(credentials.clientKey))
    throw new ProbeConfigError("clientCert", "clientCert and clientKey must be set together");
  const client =
    credentials.clientCert && credentials.clientKey
      ? { cert: credentials.clientCert, key: credentials.clientKey }
      : {};
  switch (mode) {
    case "Disabled":
      return false;
    case "SkipVerification":
      return { rejectUnauthorized: false, ...client };
    case "VerifyCA":
      // Chain checked against the CA (or system roots); the name in the certificate is not.
      return {
        rejectUnauthorized: true,
        ...(credentials.caCert ? { ca: credentials.caCert } : {}),
        checkServerIdentity: () => undefined,
        ...client,
      };
    case "VerifyAll":
      // Chain and name: pg checks the certificate against the address it connects to (the target IP).
      return {
        rejectUnauthorized: true,
        ...(credentials.caCert ? { ca: credentials.caCert } : {}),
        ...client,
      };
    default:
      throw new ProbeConfigError(
        "tlsMode",
        `must be one of Disabled, SkipVerification, VerifyCA, VerifyAll, got ${String(mode)}`,
      );
  }
}

function reasonForPgError(err: Error & { code?: string; severity?: string }, phase: string): ProbeReason {
  const code = err.code ?? "";
  if (code === RESPONSE_TOO_LARGE || code === PROTOCOL_PARSE_FAILED) return "ProtocolError";
  if (/^[0-9A-Z]{5}$/.test(code) && err.severity !== undefined) {
    if (code.startsWith("28")) return "AuthFailed"; // invalid authorization / password
    if (code === "57014") return "Timeout"; // statement_timeout fired
    return phase === "running the query" ? "QueryError" : "Error";
  }
  if (/SSL|TLS|certificate/i.test(err.message) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_"))
    return "TLSError";
  if (/password|SASL|SCRAM/i.test(err.message)) return "AuthFailed";
  if (code) return reasonForSocketError(err as NodeJS.ErrnoException, false);
  return "ProtocolError";
}

/**
 * Connects to `target` as `config.credentials`, runs `config.query` under a statement timeout equal to the time
 * left, and succeeds when the first column of the first row is truthy (SPEC §2.2). Never throws for a failing
 * target; throws `ProbeConfigError` for an invalid address or credentials shape.
 */
export function probePostgres(
  target: ProbeAddress,
  config: PostgresProbeConfig,
  opts: ProbeOptions,
): Promise<ProbeResult> {
  checkAddress(target);
  if (!config.credentials?.user) throw new ProbeConfigError("credentials.user", "is required");
  const ssl = postgresSslOption(config.credentials);
  const query = config.query ?? "select 1";
  return loadPg().then((pgLib) => runPostgresAttempt(pgLib, target, config, ssl, query, opts));
}

function runPostgresAttempt(
  pgLib: typeof pg,
  target: ProbeAddress,
  config: PostgresProbeConfig,
  ssl: SslOption,
  query: string,
  opts: ProbeOptions,
): Promise<ProbeResult> {
  return runAttempt(opts, (attempt) => {
    let phase = "connecting";
    const setPhase = (p: string) => {
      phase = p;
      attempt.phase(p);
    };
    // Every field is explicit so PG* environment variables and ~/.pgpass of the prober never leak in.
    const client = new pgLib.Client({
      host: target.host,
      port: target.port,
      user: config.credentials.user,
      password: config.credentials.password ?? "",
      database: config.dbName ?? config.credentials.user,
      ssl,
      statement_timeout: Math.max(1, opts.timeoutMs),
      application_name: "swh-probe",
      keepAlive: false,
    });
    guardStream(client.connection.stream, MAX_POSTGRES_RESPONSE_BYTES);
    // pg swaps in a TLS socket after the SSLRequest; guard that one too.
    client.connection.once("sslconnect", () =>
      guardStream(client.connection.stream, MAX_POSTGRES_RESPONSE_BYTES),
    );
    if (opts.timings === true) markPostgresPhases(client, attempt);
    const fail = (err: Error) =>
      attempt.finish(false, describeError(err as NodeJS.ErrnoException), reasonForPgError(err, phase));
    // A client without an error listener would crash the process on a late socket error.
    client.on("error", fail);
    client
      .connect()
      .then(async () => {
        setPhase("running the query");
        const res = await client.query({ text: query, rowMode: "array" });
        const first: unknown = res.rows[0]?.[0];
        if (res.rows.length === 0) return attempt.finish(false, "query returned no row", "QueryFalse");
        if (isTruthyQueryValue(first))
          return attempt.finish(true, `query returned ${JSON.stringify(String(first))}`);
        attempt.finish(
          false,
          `query returned ${first === null ? "NULL" : JSON.stringify(String(first))}`,
          "QueryFalse",
        );
      })
      .catch(fail);
    return () => {
      // Destroy, not end(): a server that never answers must not keep the socket (and its memory) alive.
      client.connection.stream.destroy();
      client.end().catch(() => undefined);
    };
  });
}

/**
 * Reports the phases of `client`'s connection to `attempt` (`ProbeOptions.timings`): the socket's connect, the TLS
 * handshake after pg's SSLRequest (pg emits `sslconnect` when it starts TLS, so the handshake's end is the TLS
 * socket's `secureConnect`), and the first byte after the login's ReadyForQuery: the query's answer.
 */
function markPostgresPhases(client: pg.Client, attempt: Attempt): void {
  const { connection } = client;
  connection.stream.once("connect", () => attempt.reached("connect"));
  connection.once("sslconnect", () => connection.stream.once("secureConnect", () => attempt.reached("tls")));
  connection.once("readyForQuery", () => connection.stream.once("data", () => attempt.reached("firstByte")));
}
