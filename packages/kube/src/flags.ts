/**
 * Command-line flags of both apps, in the controller-runtime style: `--name=value` or `--name value`, `--version`
 * anywhere. Pure: argv in, the raw values by flag name (or an error naming the argument) out; each app keeps its
 * own list of flags, defaults and checks of the values.
 */

/** Raw flag values by name, `--version`, or an error naming the offending argument. */
export type ParsedFlags<Name extends string> =
  | { ok: true; values: ReadonlyMap<Name, string> }
  | { ok: true; version: true }
  | { ok: false; error: string };

/**
 * Reads `argv` (without the node and script paths) for the flags in `names`; the last occurrence of a flag wins.
 * A flag in `booleans` may stand alone (at the end or before another `--flag`) and then reads as `"true"`.
 */
export function parseFlags<const Name extends string>(
  argv: readonly string[],
  names: readonly Name[],
  booleans: readonly Name[] = [],
): ParsedFlags<Name> {
  const values = new Map<Name, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--version") return { ok: true, version: true };
    if (!arg.startsWith("--")) return { ok: false, error: `unexpected argument "${arg}"` };
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!isOneOf(name, names)) return { ok: false, error: `unknown flag --${name}` };
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (booleans.includes(name) && (argv[i + 1] === undefined || argv[i + 1]?.startsWith("--")))
      value = "true";
    else value = argv[++i];
    if (value === undefined) return { ok: false, error: `--${name} needs a value` };
    values.set(name, value);
  }
  return { ok: true, values };
}

/**
 * Splits a bind address: `host:port`, `:port` (every interface: `host` is `""`) or `[v6]:port`, with a port of
 * 0..65535 (0 picks a free port). Returns undefined for anything else, so that the caller names its flag in the error.
 */
export function splitHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) return undefined;
  return { host: match[1] ?? match[2] ?? "", port };
}

function isOneOf<Name extends string>(name: string, names: readonly Name[]): name is Name {
  return (names as readonly string[]).includes(name);
}

/** The flags both apps take for the metrics server's certificate (PEM files, e.g. from a mounted TLS Secret). */
export const METRICS_TLS_FLAGS = ["metrics-tls-cert-file", "metrics-tls-private-key-file"] as const;

/**
 * Reads `--metrics-tls-cert-file` and `--metrics-tls-private-key-file` from parsed flag values: both (files) or
 * neither (undefined: a self-signed certificate); one without the other is an error naming the missing flag.
 */
export function parseMetricsTlsFlags(
  values: ReadonlyMap<string, string>,
): { ok: true; files: { certFile: string; keyFile: string } | undefined } | { ok: false; error: string } {
  const certFile = values.get("metrics-tls-cert-file") || undefined;
  const keyFile = values.get("metrics-tls-private-key-file") || undefined;
  if (certFile === undefined && keyFile === undefined) return { ok: true, files: undefined };
  if (certFile === undefined)
    return { ok: false, error: "--metrics-tls-cert-file is required with --metrics-tls-private-key-file" };
  if (keyFile === undefined)
    return { ok: false, error: "--metrics-tls-private-key-file is required with --metrics-tls-cert-file" };
  return { ok: true, files: { certFile, keyFile } };
}
