/**
 * Parses `swh-probe` arguments into one probe invocation; pure (names are resolved and files read by the caller).
 * Each probe kind is one entry of `KINDS` (its flags are in `cli-flags.ts`: `FLAGS`, and the kinds each applies
 * to, `FLAG_KINDS`) and one case of the CLI's `execute`: adding a kind is a parser here and a few lines there. A
 * flag given to a kind it does not apply to is an error, never silently ignored (ADR 0042).
 */
import type { HttpBodyMatch, PostgresTlsMode } from "@swh/crd-types";
import { GRPC_AUTHORITY_PATTERN } from "@swh/crd-types/internal";
import { parseDurationFlag, parseFlags } from "@swh/flags";
import type { GrpcProbeConfig } from "../probe-grpc.js";
import type { HttpProbeConfig } from "../probe-http.js";
import type { ProbeConfigError } from "../probe-result.js";
import type { TcpProbeConfig } from "../probe-tcp.js";
import { ALL_KINDS, FLAG_KINDS, FLAGS, type FlagName, type ProbeKind } from "./cli-flags.js";

/** Where to probe: an IP literal or a DNS name (resolved by the CLI, never by the library), and a port. */
export interface CliTarget {
  host: string;
  port: number;
}

/** How results are printed: one line for people (the default), or one JSON line. */
export type CliOutput = "text" | "json";

/** What every probe command has. */
interface ProbeCommandBase {
  target: CliTarget;
  timeoutMs: number;
  output: CliOutput;
  /** `-v`: report when each phase was reached (the probe measures it only then). */
  verbose: boolean;
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

/** The raw flag values: the last of each, and every one of repeatable flags. */
interface FlagValues {
  get(name: FlagName): string | undefined;
  all(name: FlagName): readonly string[];
}

/** Thrown for unusable arguments; the message says which. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** The flag behind each configuration field a probe may still refuse (the parser checks the others first). */
const FLAG_OF_FIELD: Readonly<Record<string, FlagName>> = {
  path: "path",
  host: "host",
  httpHeaders: "header",
  responseHeaders: "expect-header",
  send: "send",
  expect: "expect",
  clientCert: "client-cert",
};

/**
 * A probe's `ProbeConfigError` in the command line's words: `--header (httpHeaders[1].value): contains control
 * characters` names the flag, and the field when it tells which of the flag's values.
 */
export function describeConfigError(error: ProbeConfigError): string {
  const field = error.field.replace(/[[.].*$/, "");
  const flag = Object.hasOwn(FLAG_OF_FIELD, field) ? FLAG_OF_FIELD[field] : undefined;
  if (flag === undefined) return error.message;
  // ProbeConfigError's message is `${field}: ${what is wrong}`.
  const detail = error.message.slice(error.field.length + 2);
  return field === error.field ? `--${flag}: ${detail}` : `--${flag} (${error.field}): ${detail}`;
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

/** Parses `--timeout`: a duration with its unit (a bare number is refused: `2` was 2 ms to older versions). */
function parseTimeout(text: string | undefined): number {
  if (text === undefined) return 1000;
  const parsed = parseDurationFlag("--timeout", text);
  if (!parsed.ok) throw new CliUsageError(parsed.error);
  if (!Number.isSafeInteger(parsed.ms) || parsed.ms < 1)
    throw new CliUsageError(`--timeout must be at least 1ms, got ${JSON.stringify(text)}`);
  return parsed.ms;
}

function parseOutput(text: string | undefined): CliOutput {
  if (text === undefined || text === "text" || text === "json") return text ?? "text";
  throw new CliUsageError(`--output must be text or json, got ${JSON.stringify(text)}`);
}

/** Refuses a flag the probe kind does not take (`tcp --path /x` would otherwise be silently ignored). */
function checkFlagsApply(kind: ProbeKind, given: Iterable<FlagName>): void {
  for (const flag of given) {
    const kinds = FLAG_KINDS[flag];
    if (!kinds.includes(kind))
      throw new CliUsageError(`--${flag} does not apply to ${kind} probes (only to ${kinds.join(", ")})`);
  }
}

/** Refuses TLS settings on a probe that does not use TLS (`--ca` without `--https` would be ignored). */
function checkTlsFlags(flags: FlagValues, tlsFlag: "https" | "tls"): void {
  if (flags.get(tlsFlag) === "true") return;
  for (const flag of ["ca", "insecure"] as const)
    if (flags.get(flag) !== undefined) throw new CliUsageError(`--${flag} needs --${tlsFlag}`);
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
const KINDS: Record<ProbeKind, (flags: FlagValues, base: ProbeCommandBase) => ProbeCommand> = {
  tcp: (flags, base) => ({
    kind: "tcp",
    ...base,
    config: defined({
      send: unescapeText("send", flags.get("send")),
      expect: unescapeText("expect", flags.get("expect")),
    }),
  }),
  http: (flags, base) => {
    checkTlsFlags(flags, "https");
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
    checkTlsFlags(flags, "tls");
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
    if (flags.get("ca") !== undefined && tlsMode !== "VerifyCA" && tlsMode !== "VerifyAll")
      throw new CliUsageError(
        "--ca needs --tls-mode VerifyCA or VerifyAll (the certificate is not checked otherwise)",
      );
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
  if (!isProbeKind(kind))
    throw new CliUsageError(`unknown probe kind ${JSON.stringify(kind)} (${ALL_KINDS.join(", ")})`);
  checkFlagsApply(kind, parsed.values.keys());
  const base: ProbeCommandBase = {
    target: parseAddress(address),
    timeoutMs: parseTimeout(flags.get("timeout")),
    output: parseOutput(flags.get("output")),
    verbose: flags.get("verbose") === "true",
  };
  return KINDS[kind](flags, base);
}

function isProbeKind(kind: string): kind is ProbeKind {
  return (ALL_KINDS as readonly string[]).includes(kind);
}
