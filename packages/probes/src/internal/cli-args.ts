/**
 * Parses `swh-probe` arguments into one probe invocation; pure (names are resolved and files read by the caller).
 * Each probe kind is one entry of `KINDS` (its flags are in `FLAGS`, prefixed by kind in the help) and one case of
 * the CLI's `execute`: adding a kind is a parser here and a few lines there.
 */
import type { HttpBodyMatch, PostgresTlsMode } from "@swh/crd-types";
import { GRPC_AUTHORITY_PATTERN } from "@swh/crd-types/internal";
import { type FlagSpecs, formatUsage, parseDuration, parseFlags } from "@swh/flags";
import type { GrpcProbeConfig } from "../probe-grpc.js";
import type { HttpProbeConfig } from "../probe-http.js";
import type { TcpProbeConfig } from "../probe-tcp.js";

/** Where to probe: an IP literal or a DNS name (resolved by the CLI, never by the library), and a port. */
export interface CliTarget {
  host: string;
  port: number;
}

/** How results are printed: one JSON line, or one line for people. */
export type CliOutput = "text" | "json";

/** What every probe command has. */
interface ProbeCommandBase {
  target: CliTarget;
  timeoutMs: number;
  /** As asked; undefined = text on a terminal, JSON otherwise. */
  output?: CliOutput;
}

/** A parsed command; file paths (`caFile`, ...) are still paths. */
export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | (ProbeCommandBase & { kind: "tcp"; config: TcpProbeConfig })
  | (ProbeCommandBase & { kind: "http"; config: HttpProbeConfig; caFile?: string })
  | (ProbeCommandBase & { kind: "grpc"; config: GrpcProbeConfig; caFile?: string })
  | (ProbeCommandBase & {
      kind: "postgres";
      dbName?: string;
      query?: string;
      user: string;
      passwordFile?: string;
      tlsMode?: PostgresTlsMode;
      caFile?: string;
      clientCertFile?: string;
      clientKeyFile?: string;
    });

/** A command that runs a probe. */
export type ProbeCommand = Exclude<CliCommand, { kind: "help" | "version" }>;

const FLAGS = {
  timeout: {
    value: "DURATION",
    default: "1s",
    help: "the probe's deadline: 500ms, 5s, 1m (a bare number is milliseconds)",
  },
  output: { value: "text|json", default: "text on a terminal, else json", help: "how the result is printed" },
  path: { value: "PATH", default: "/", help: "http: the request path" },
  host: {
    value: "NAME",
    default: "the address's name, else the address",
    help: "http: the Host header, grpc: the :authority; both: the TLS name checked (SNI only for a DNS name)",
  },
  https: { type: "boolean", default: "false", help: "http: over TLS" },
  tls: { type: "boolean", default: "false", help: "grpc: over TLS" },
  service: {
    value: "NAME",
    default: "the empty name: the whole server",
    help: "grpc: the service whose health is checked",
  },
  method: { value: "GET|HEAD", default: "GET", help: "http: the request method" },
  header: { value: "'Name: value'", multiple: true, default: "none", help: "http: a request header" },
  code: { value: "N", multiple: true, default: "200-399", help: "http: an accepted status, 100..599" },
  "expect-header": {
    value: "'Name: value'",
    multiple: true,
    default: "none",
    help: "http: the response must carry this header with exactly this value",
  },
  send: {
    value: "TEXT",
    default: "nothing",
    help: "tcp: text to write once connected (\\r \\n \\t \\\\ escapes)",
  },
  expect: {
    value: "TEXT",
    default: "none: connect only",
    help: "tcp: the first 4 KiB of the answer must contain TEXT (same escapes)",
  },
  "body-contains": {
    value: "TEXT",
    default: "none",
    help: "http: the first 4 KiB of the body must contain TEXT",
  },
  "body-not-contains": {
    value: "TEXT",
    default: "none",
    help: "http: the first 4 KiB of the body must not contain TEXT",
  },
  ca: {
    value: "FILE",
    default: "the system CAs",
    help: "http, grpc, postgres: PEM CA certificates to verify with",
  },
  insecure: { type: "boolean", default: "false", help: "http, grpc: skip TLS verification" },
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

type FlagName = keyof typeof FLAGS;
/** The raw flag values: the last of each, and every one of repeatable flags. */
interface FlagValues {
  get(name: FlagName): string | undefined;
  all(name: FlagName): readonly string[];
}

/** Usage text printed by `--help` and on bad arguments: every flag with its default. */
export const USAGE = formatUsage(
  `usage: swh-probe <tcp|http|grpc|postgres> <host:port> [flags]
host is an IP address ([ipv6]:port) or a DNS name, resolved here (the first address is probed).
Exit code: 0 the probe passed, 1 it failed, 2 usage error, 3 internal error.`,
  FLAGS,
);

/** Thrown for unusable arguments; the message says which. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Parses `host:port` (an IPv4 address or a DNS name) or `[ipv6]:port`. */
function parseAddress(text: string): CliTarget {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(text) ?? /^([^:[\]]+):(\d{1,5})$/.exec(text);
  if (!m) throw new CliUsageError(`address must be host:port or [ipv6]:port, got ${JSON.stringify(text)}`);
  const [, host, port] = m as unknown as [string, string, string];
  if (!text.startsWith("[") && !DNS_NAME.test(host))
    throw new CliUsageError(`address: ${JSON.stringify(host)} is neither an IP address nor a DNS name`);
  const n = Number(port);
  if (n < 1 || n > 65535) throw new CliUsageError(`address: port must be 1..65535, got ${port}`);
  return { host, port: n };
}

/** Parses `--timeout`: a duration with a unit, or a bare number of milliseconds (what older versions took). */
function parseTimeout(text: string | undefined): number {
  if (text === undefined) return 1000;
  const ms = /^\d+$/.test(text) ? Number(text) : parseDuration(text);
  if (ms === undefined || !Number.isSafeInteger(ms) || ms < 1)
    throw new CliUsageError(
      `--timeout must be a positive duration such as 500ms or 5s, got ${JSON.stringify(text)}`,
    );
  return ms;
}

function parseOutput(text: string | undefined): CliOutput | undefined {
  if (text === undefined || text === "text" || text === "json") return text;
  throw new CliUsageError(`--output must be text or json, got ${JSON.stringify(text)}`);
}

/** Keeps the defined entries only (`exactOptionalPropertyTypes`: an absent field is not `undefined`). */
function defined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

/** Parses `'Name: value'` of the flag `flag`. */
function parseHeader(flag: string, text: string): { name: string; value: string } {
  const colon = text.indexOf(":");
  if (colon <= 0) throw new CliUsageError(`--${flag} must be 'Name: value', got ${JSON.stringify(text)}`);
  return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
}

const ESCAPES: Readonly<Record<string, string>> = { r: "\r", n: "\n", t: "\t", "\\": "\\" };

/** `text` with `\r`, `\n`, `\t` and `\\` turned into the characters (a line protocol needs CR LF). */
function unescapeText(flag: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.replace(/\\(.?)/g, (_match, c: string) => {
    const char = ESCAPES[c];
    if (char === undefined)
      throw new CliUsageError(`--${flag}: unknown escape \\${c} (use \\r, \\n, \\t or \\\\)`);
    return char;
  });
}

/** One parser per probe kind: the kind's own flags on top of what every probe command has. */
const KINDS: Record<string, (flags: FlagValues, base: ProbeCommandBase) => ProbeCommand> = {
  tcp: (flags, base) => ({
    kind: "tcp",
    ...base,
    config: defined({
      send: unescapeText("send", flags.get("send")),
      expect: unescapeText("expect", flags.get("expect")),
    }),
  }),
  http: (flags, base) => {
    const method = flags.get("method") ?? "GET";
    if (method !== "GET" && method !== "HEAD") throw new CliUsageError("--method must be GET or HEAD");
    const httpHeaders = flags.all("header").map((h) => parseHeader("header", h));
    const responseHeaders = flags.all("expect-header").map((h) => parseHeader("expect-header", h));
    const code = flags.all("code").map((c) => {
      const n = Number(c);
      if (!Number.isInteger(n) || n < 100 || n > 599)
        throw new CliUsageError(`--code must be 100..599, got ${c}`);
      return n;
    });
    const body: HttpBodyMatch = defined({
      contains: flags.get("body-contains"),
      notContains: flags.get("body-not-contains"),
    });
    if (Object.keys(body).length > 0 && method !== "GET")
      throw new CliUsageError("--body-contains and --body-not-contains need --method GET");
    const host = flags.get("host");
    const config: HttpProbeConfig = {
      path: flags.get("path") ?? "/",
      scheme: flags.get("https") === "true" ? "HTTPS" : "HTTP",
      method,
      httpHeaders,
      code,
      insecureSkipTLSVerify: flags.get("insecure") === "true",
      ...(host !== undefined ? { host } : {}),
      ...(Object.keys(body).length > 0 ? { body } : {}),
      ...(responseHeaders.length > 0 ? { responseHeaders } : {}),
    };
    const caFile = flags.get("ca");
    return { kind: "http", ...base, config, ...(caFile !== undefined ? { caFile } : {}) };
  },
  grpc: (flags, base) => {
    const caFile = flags.get("ca");
    const host = flags.get("host");
    // probeGrpc checks this too, but names the resource's field; a person typed --host.
    if (host !== undefined && !new RegExp(GRPC_AUTHORITY_PATTERN).test(host))
      throw new CliUsageError(
        `--host must be a host name or [IPv6 address], optionally with :port, got ${JSON.stringify(host)}`,
      );
    const config: GrpcProbeConfig = {
      tls: flags.get("tls") === "true",
      insecureSkipTLSVerify: flags.get("insecure") === "true",
      ...defined({ service: flags.get("service"), host }),
    };
    return { kind: "grpc", ...base, config, ...(caFile !== undefined ? { caFile } : {}) };
  },
  postgres: (flags, base) => {
    const user = flags.get("user");
    if (!user) throw new CliUsageError("--user is required for postgres");
    const tlsMode = flags.get("tls-mode");
    if (tlsMode !== undefined && !["Disabled", "SkipVerification", "VerifyCA", "VerifyAll"].includes(tlsMode))
      throw new CliUsageError("--tls-mode must be Disabled, SkipVerification, VerifyCA or VerifyAll");
    return {
      kind: "postgres",
      ...base,
      user,
      ...defined({
        dbName: flags.get("db"),
        query: flags.get("query"),
        passwordFile: flags.get("password-file"),
        tlsMode: tlsMode as PostgresTlsMode | undefined,
        caFile: flags.get("ca"),
        clientCertFile: flags.get("client-cert"),
        clientKeyFile: flags.get("client-key"),
      }),
    };
  },
};

/** Parses argv (without `node` and the script) into a command. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const parsed = parseFlags(argv, FLAGS, { positionals: true });
  if (!parsed.ok) throw new CliUsageError(parsed.error);
  if ("help" in parsed) return { kind: "help" };
  if ("version" in parsed) return { kind: "version" };
  const flags: FlagValues = {
    get: (name) => parsed.values.get(name),
    all: (name) => parsed.lists.get(name) ?? [],
  };
  const [kind, address, ...extra] = parsed.positionals;
  if (!kind || !address || extra.length > 0) throw new CliUsageError("expected a probe kind and one address");
  const parse = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  if (!parse)
    throw new CliUsageError(`unknown probe kind ${JSON.stringify(kind)} (${Object.keys(KINDS).join(", ")})`);
  const output = parseOutput(flags.get("output"));
  const base: ProbeCommandBase = {
    target: parseAddress(address),
    timeoutMs: parseTimeout(flags.get("timeout")),
    ...(output !== undefined ? { output } : {}),
  };
  return parse(flags, base);
}
