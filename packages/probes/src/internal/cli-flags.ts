/**
 * The flags `swh-probe` takes, with their defaults and help (`FLAGS`), the probe kinds each applies to
 * (`FLAG_KINDS`) and the `--help` text made of both. Data only; `cli-args.ts` reads argv with it.
 */
import { type FlagSpec, type FlagSpecs, formatUsage } from "@swh/flags";

/** The probe kinds `swh-probe` runs. */
export type ProbeKind = "tcp" | "http" | "grpc" | "postgres";

export const FLAGS = {
  timeout: {
    value: "DURATION",
    default: "1s",
    help: "the probe's deadline: 500ms, 5s, 1m (a number needs its unit)",
  },
  output: { value: "text|json", default: "text", help: "how the result is printed: one line either way" },
  verbose: {
    type: "boolean",
    short: "v",
    default: "false",
    help: "also print when each phase was reached: connect, TLS, first byte, total (ms since the start)",
  },
  path: { value: "PATH", default: "/", help: "the request path" },
  host: {
    value: "NAME",
    default: "the address's name, else the address",
    help: "the Host header (http) or :authority (grpc), and the TLS name checked (SNI only for a DNS name)",
  },
  https: { type: "boolean", default: "false", help: "over TLS" },
  tls: { type: "boolean", default: "false", help: "over TLS" },
  service: {
    value: "NAME",
    default: "the empty name: the whole server",
    help: "the service whose health is checked",
  },
  method: { value: "GET|HEAD", default: "GET", help: "the request method" },
  header: { value: "'Name: value'", multiple: true, default: "none", help: "a request header" },
  code: { value: "N", multiple: true, default: "200-399", help: "an accepted status, 100..599" },
  "expect-header": {
    value: "'Name: value'",
    multiple: true,
    default: "none",
    help: "the response must carry this header with exactly this value",
  },
  send: {
    value: "TEXT",
    default: "nothing",
    help: "text to write once connected (\\r \\n \\t \\\\ escapes)",
  },
  expect: {
    value: "TEXT",
    default: "none: connect only",
    help: "the first 4 KiB of the answer must contain TEXT (same escapes)",
  },
  "body-contains": { value: "TEXT", default: "none", help: "the first 4 KiB of the body must contain TEXT" },
  "body-not-contains": {
    value: "TEXT",
    default: "none",
    help: "the first 4 KiB of the body must not contain TEXT",
  },
  ca: {
    value: "FILE",
    default: "the system CAs",
    help: "PEM CA certificates to verify with (http: with --https, grpc: with --tls, postgres: VerifyCA, VerifyAll)",
  },
  insecure: { type: "boolean", default: "false", help: "skip TLS verification (with --https or --tls)" },
  user: { value: "NAME", default: "none; required", help: "the user" },
  "password-file": { value: "FILE", default: "$PGPASSWORD", help: "a file holding the password" },
  db: { value: "NAME", default: "the user's name", help: "the database" },
  query: { value: "SQL", default: "none: connect and authenticate only", help: "a query to run" },
  "tls-mode": {
    value: "MODE",
    default: "SkipVerification",
    help: "Disabled | SkipVerification | VerifyCA | VerifyAll",
  },
  "client-cert": { value: "FILE", default: "none", help: "PEM client certificate" },
  "client-key": { value: "FILE", default: "none", help: "its PEM private key" },
} as const satisfies FlagSpecs;

export type FlagName = keyof typeof FLAGS;

export const ALL_KINDS: readonly ProbeKind[] = ["tcp", "http", "grpc", "postgres"];
/** The kinds each flag applies to: the one fact behind the help's prefixes and the error for a misplaced flag. */
export const FLAG_KINDS: Readonly<Record<FlagName, readonly ProbeKind[]>> = {
  timeout: ALL_KINDS,
  output: ALL_KINDS,
  verbose: ALL_KINDS,
  path: ["http"],
  host: ["http", "grpc"],
  https: ["http"],
  tls: ["grpc"],
  service: ["grpc"],
  method: ["http"],
  header: ["http"],
  code: ["http"],
  "expect-header": ["http"],
  send: ["tcp"],
  expect: ["tcp"],
  "body-contains": ["http"],
  "body-not-contains": ["http"],
  ca: ["http", "grpc", "postgres"],
  insecure: ["http", "grpc"],
  user: ["postgres"],
  "password-file": ["postgres"],
  db: ["postgres"],
  query: ["postgres"],
  "tls-mode": ["postgres"],
  "client-cert": ["postgres"],
  "client-key": ["postgres"],
};

/** The flags as `--help` shows them: each kind-specific flag's help starts with the kinds it applies to. */
function flagsWithKinds(): FlagSpecs {
  return Object.fromEntries(
    Object.entries<FlagSpec>(FLAGS).map(([name, spec]) => {
      const kinds = FLAG_KINDS[name as FlagName];
      return [name, kinds === ALL_KINDS ? spec : { ...spec, help: `${kinds.join(", ")}: ${spec.help}` }];
    }),
  );
}

/** Usage text printed by `--help`: every flag with its default. */
export const USAGE = formatUsage(
  `usage: swh-probe <tcp|http|grpc|postgres> <host:port> [flags]
host is an IP address ([ipv6]:port) or a DNS name, resolved here (the first address is probed).
Prints one line: PASS or FAIL, the target, the reason code of a failure and a message.
Exit code: 0 the probe passed, 1 it failed, 2 usage error, 3 internal error.`,
  flagsWithKinds(),
);
