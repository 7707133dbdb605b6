/** Parses `swh-probe` arguments into one probe invocation; pure (file contents are read by the caller). */
import type { PostgresTlsMode } from "@swh/crd-types";
import { type FlagSpecs, formatUsage, parseFlags } from "@swh/kube/flags";
import type { HttpProbeConfig } from "../probe-http.js";
import type { ProbeAddress } from "../probe-result.js";

/** A parsed command; file paths (`caFile`, ...) are still paths. */
export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "tcp"; target: ProbeAddress; timeoutMs: number }
  | { kind: "http"; target: ProbeAddress; timeoutMs: number; config: HttpProbeConfig; caFile?: string }
  | {
      kind: "postgres";
      target: ProbeAddress;
      timeoutMs: number;
      dbName?: string;
      query?: string;
      user: string;
      passwordFile?: string;
      tlsMode?: PostgresTlsMode;
      caFile?: string;
      clientCertFile?: string;
      clientKeyFile?: string;
    };

const FLAGS = {
  timeout: { value: "MS", default: "1000", help: "the probe's deadline, in milliseconds" },
  path: { value: "PATH", default: "/", help: "http: the request path" },
  host: { value: "NAME", default: "the address", help: "http: the Host header and the TLS name checked" },
  https: { type: "boolean", default: "false", help: "http: over TLS" },
  method: { value: "GET|HEAD", default: "GET", help: "http: the request method" },
  header: { value: "'Name: value'", multiple: true, default: "none", help: "http: a request header" },
  code: { value: "N", multiple: true, default: "200-399", help: "http: an accepted status, 100..599" },
  ca: {
    value: "FILE",
    default: "the system CAs",
    help: "http, postgres: PEM CA certificates to verify with",
  },
  insecure: { type: "boolean", default: "false", help: "http: skip TLS verification" },
  user: { value: "NAME", default: "none; required for postgres", help: "postgres: the user" },
  "password-file": { value: "FILE", default: "$PGPASSWORD", help: "postgres: a file holding the password" },
  db: { value: "NAME", default: "the user's name", help: "postgres: the database" },
  query: { value: "SQL", default: "none: connect and authenticate only", help: "postgres: a query to run" },
  "tls-mode": {
    value: "MODE",
    default: "SkipVerification",
    help: "postgres: Disabled | SkipVerification | VerifyCA | VerifyAll",
  },
  "client-cert": { value: "FILE", default: "none", help: "postgres: PEM client certificate" },
  "client-key": { value: "FILE", default: "none", help: "postgres: its PEM private key" },
} as const satisfies FlagSpecs;

/** Usage text printed by `--help` and on bad arguments: every flag with its default. */
export const USAGE = formatUsage(
  `usage: swh-probe <tcp|http|postgres> <ip:port> [flags]
Prints the result as one JSON line; exit code 0 = ok, 1 = probe failed, 2 = usage error.`,
  FLAGS,
);

/** Thrown for unusable arguments; the message says which. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** Parses `ip:port` or `[ipv6]:port`. */
export function parseAddress(text: string): ProbeAddress {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  if (!m) throw new CliUsageError(`address must be ip:port or [ipv6]:port, got ${JSON.stringify(text)}`);
  return { host: m[1] as string, port: Number(m[2]) };
}

/** Parses argv (without `node` and the script) into a command. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const parsed = parseFlags(argv, FLAGS, { positionals: true });
  if (!parsed.ok) throw new CliUsageError(parsed.error);
  if ("help" in parsed) return { kind: "help" };
  if ("version" in parsed) return { kind: "version" };
  const { positionals, lists } = parsed;
  // Booleans arrive as "true"/"false"; the rest as given, the last one winning (every one for header and code).
  const flag = (name: keyof typeof FLAGS) => parsed.values.get(name);
  const values = {
    timeout: flag("timeout"),
    path: flag("path"),
    host: flag("host"),
    https: flag("https") === "true",
    method: flag("method"),
    header: lists.get("header"),
    code: lists.get("code"),
    ca: flag("ca"),
    insecure: flag("insecure") === "true",
    user: flag("user"),
    "password-file": flag("password-file"),
    db: flag("db"),
    query: flag("query"),
    "tls-mode": flag("tls-mode"),
    "client-cert": flag("client-cert"),
    "client-key": flag("client-key"),
  };
  const [kind, address, ...extra] = positionals;
  if (!kind || !address || extra.length > 0) throw new CliUsageError("expected a probe kind and one address");
  const target = parseAddress(address);
  const timeoutMs = values.timeout === undefined ? 1000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new CliUsageError("--timeout must be a positive integer (ms)");
  if (kind === "tcp") return { kind, target, timeoutMs };
  if (kind === "http") {
    const method = values.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") throw new CliUsageError("--method must be GET or HEAD");
    const httpHeaders = (values.header ?? []).map((h) => {
      const colon = h.indexOf(":");
      if (colon <= 0) throw new CliUsageError(`--header must be 'Name: value', got ${JSON.stringify(h)}`);
      return { name: h.slice(0, colon).trim(), value: h.slice(colon + 1).trim() };
    });
    const code = (values.code ?? []).map((c) => {
      const n = Number(c);
      if (!Number.isInteger(n) || n < 100 || n > 599)
        throw new CliUsageError(`--code must be 100..599, got ${c}`);
      return n;
    });
    const config: HttpProbeConfig = {
      path: values.path ?? "/",
      scheme: values.https ? "HTTPS" : "HTTP",
      method,
      httpHeaders,
      code,
      insecureSkipTLSVerify: values.insecure,
      ...(values.host !== undefined ? { host: values.host } : {}),
    };
    return { kind, target, timeoutMs, config, ...(values.ca !== undefined ? { caFile: values.ca } : {}) };
  }
  if (kind === "postgres") {
    if (!values.user) throw new CliUsageError("--user is required for postgres");
    const tlsMode = values["tls-mode"];
    if (tlsMode !== undefined && !["Disabled", "SkipVerification", "VerifyCA", "VerifyAll"].includes(tlsMode))
      throw new CliUsageError("--tls-mode must be Disabled, SkipVerification, VerifyCA or VerifyAll");
    const optional = {
      dbName: values.db,
      query: values.query,
      passwordFile: values["password-file"],
      tlsMode: tlsMode as PostgresTlsMode | undefined,
      caFile: values.ca,
      clientCertFile: values["client-cert"],
      clientKeyFile: values["client-key"],
    };
    return {
      kind,
      target,
      timeoutMs,
      user: values.user,
      ...(Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) as Partial<
        typeof optional
      >),
    } as CliCommand;
  }
  throw new CliUsageError(`unknown probe kind ${JSON.stringify(kind)} (tcp, http or postgres)`);
}
