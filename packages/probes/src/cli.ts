/**
 * `swh-probe`: one ad-hoc probe from the command line. The library probes IP addresses only (a probe must never
 * be sent elsewhere by a name); the CLI, run by a person, resolves a DNS name itself and probes its first address,
 * with the name as the HTTP Host or gRPC :authority and the TLS name unless `--host` says otherwise. Exit code:
 * 0 passed, 1 failed (including a name that does not resolve: `DNSError`), 2 usage error, 3 internal error (a bug:
 * the probe did not say whether the target is healthy). Every outcome but a bug is one line: the result on stdout
 * (text unless `--output json`, whatever stdout is), or a usage error on stderr that ends "(try --help)" (ADR 0042).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import {
  type CliCommand,
  CliUsageError,
  describeConfigError,
  type ProbeCommand,
  parseCliArgs,
} from "./internal/cli-args.js";
import { USAGE } from "./internal/cli-flags.js";
import { formatCliResult } from "./internal/cli-output.js";
import { oneLineMessage } from "./internal/one-line-message.js";
import { probeGrpc } from "./probe-grpc.js";
import { probeHttp } from "./probe-http.js";
import { probePostgres } from "./probe-postgres.js";
import { type ProbeAddress, ProbeConfigError, type ProbeResult } from "./probe-result.js";
import { probeTcp } from "./probe-tcp.js";

/** Exit codes of `swh-probe`. */
const EXIT = { passed: 0, failed: 1, usage: 2, internal: 3 } as const;

/** Where the CLI writes, what it reads; the defaults are the process's. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Resolves a DNS name to one address (default: the system resolver, `dns.lookup`). */
  lookup?: (name: string) => Promise<string>;
}

const PROCESS_IO: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/** Runs the CLI with `argv`; resolves to the exit code (`EXIT`). Never rejects. */
export async function runCli(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (error) {
    return usageError(io, error as Error);
  }
  if (command.kind === "help") {
    io.out(USAGE);
    return EXIT.passed;
  }
  if (command.kind === "version") {
    io.out(`swh-probe ${packageVersion()}`);
    return EXIT.passed;
  }
  try {
    const { result, address } = await resolveAndProbe(command, io);
    io.out(formatCliResult({ kind: command.kind, target: command.target, address, result }, command.output));
    return result.ok ? EXIT.passed : EXIT.failed;
  } catch (error) {
    if (error instanceof ProbeConfigError)
      return usageError(io, new CliUsageError(describeConfigError(error)));
    if (error instanceof CliUsageError) return usageError(io, error);
    io.err(
      `swh-probe: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return EXIT.internal;
  }
}

// Read at run time: the CLI runs from src/ (tests) and from dist/ (bin/swh-probe.js), both one level below it.
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Prints a usage error as one line that points to `--help` (not the whole help: it would bury the error). */
function usageError(io: CliIo, error: Error): number {
  io.err(`swh-probe: ${oneLineMessage(error.message)} (try --help)`);
  return EXIT.usage;
}

/** The contents of the file `flag` names; a file that cannot be read is a usage error naming the flag. */
function readFlagFile(flag: string, file: string): string;
function readFlagFile(flag: string, file: string | undefined): string | undefined;
function readFlagFile(flag: string, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new CliUsageError(`--${flag}: ${(error as Error).message}`, { cause: error });
  }
}

async function defaultLookup(name: string): Promise<string> {
  return (await dnsLookup(name)).address;
}

/** Resolves the target's name (a failure is a `DNSError` result, not an exception), then probes the address. */
async function resolveAndProbe(
  command: ProbeCommand,
  io: CliIo,
): Promise<{ result: ProbeResult; address?: ProbeAddress }> {
  const { host, port } = command.target;
  if (isIP(host) !== 0)
    return { result: await execute(command, { host, port }, undefined, io.env ?? process.env) };
  let ip: string;
  try {
    ip = await (io.lookup ?? defaultLookup)(host);
  } catch (error) {
    const message = `cannot resolve ${host}: ${(error as Error).message}`;
    return { result: { ok: false, reason: "DNSError", message, durationMs: 0 } };
  }
  const address = { host: ip, port };
  return { result: await execute(command, address, host, io.env ?? process.env), address };
}

/** The Host header for a name: with the port unless it is the scheme's default (as browsers and curl send it). */
function hostHeaderFor(name: string, port: number, https: boolean): string {
  return port === (https ? 443 : 80) ? name : `${name}:${port}`;
}

function execute(
  command: ProbeCommand,
  address: ProbeAddress,
  name: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ProbeResult> {
  const opts = { timeoutMs: command.timeoutMs, ...(command.verbose ? { timings: true } : {}) };
  switch (command.kind) {
    case "tcp":
      return probeTcp(address, command.config, opts);
    case "http": {
      const caCert = readFlagFile("ca", command.caFile);
      const https = command.config.scheme === "HTTPS";
      const host =
        command.config.host ?? (name === undefined ? undefined : hostHeaderFor(name, address.port, https));
      return probeHttp(
        address,
        { ...command.config, ...(caCert ? { caCert } : {}), ...(host !== undefined ? { host } : {}) },
        opts,
      );
    }
    case "grpc": {
      const caCert = readFlagFile("ca", command.caFile);
      // gRPC clients send the target as written, port included, as :authority (and its host as the TLS name).
      const host = command.config.host ?? (name === undefined ? undefined : `${name}:${address.port}`);
      return probeGrpc(
        address,
        { ...command.config, ...(caCert ? { caCert } : {}), ...(host !== undefined ? { host } : {}) },
        opts,
      );
    }
    case "postgres": {
      const password = command.passwordFile
        ? readFlagFile("password-file", command.passwordFile).replace(/\r?\n$/, "")
        : env.PGPASSWORD;
      const pem = {
        caCert: readFlagFile("ca", command.caFile),
        clientCert: readFlagFile("client-cert", command.clientCertFile),
        clientKey: readFlagFile("client-key", command.clientKeyFile),
      };
      const credentials = {
        user: command.user,
        ...(password !== undefined ? { password } : {}),
        ...(command.tlsMode ? { tlsMode: command.tlsMode } : {}),
        ...Object.fromEntries(Object.entries(pem).filter(([, v]) => v !== undefined)),
      };
      return probePostgres(
        address,
        {
          credentials,
          ...(command.dbName !== undefined ? { dbName: command.dbName } : {}),
          ...(command.query !== undefined ? { query: command.query } : {}),
        },
        opts,
      );
    }
  }
}
