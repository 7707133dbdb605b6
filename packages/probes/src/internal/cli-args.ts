/** Parses `swh-probe` arguments into one probe invocation; pure (file contents are read by the caller). */
import { parseArgs } from "node:util";
import type { PostgresTlsMode } from "@swh/crd-types";
import type { HttpProbeConfig } from "../probe-http.js";
import type { ProbeAddress } from "../probe-result.js";

/** A parsed command; file paths (`caFile`, ...) are still paths. */
export type CliCommand =
  | { kind: "help" }
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

/** Usage text printed by `--help` and on bad arguments. */
export const USAGE = `usage: swh-probe <tcp|http|postgres> <ip:port> [options]
  common:   --timeout <ms> (default 1000)
  http:     --path /healthz  --host <name>  --https  --method GET|HEAD  --header 'Name: value' (repeatable)
            --code <n> (repeatable; default 200-399)  --ca <pem file>  --insecure
  postgres: --user <name>  --password-file <file> (or env PGPASSWORD)  --db <name>  --query <sql>
            --tls-mode Disabled|SkipVerification|VerifyCA|VerifyAll  --ca <file>  --client-cert <file>  --client-key <file>
Prints the result as one JSON line; exit code 0 = ok, 1 = probe failed, 2 = usage error.`;

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
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      timeout: { type: "string" },
      path: { type: "string" },
      host: { type: "string" },
      https: { type: "boolean" },
      method: { type: "string" },
      header: { type: "string", multiple: true },
      code: { type: "string", multiple: true },
      ca: { type: "string" },
      insecure: { type: "boolean" },
      user: { type: "string" },
      "password-file": { type: "string" },
      db: { type: "string" },
      query: { type: "string" },
      "tls-mode": { type: "string" },
      "client-cert": { type: "string" },
      "client-key": { type: "string" },
    },
  });
  if (values.help) return { kind: "help" };
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
      insecureSkipTLSVerify: values.insecure ?? false,
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
