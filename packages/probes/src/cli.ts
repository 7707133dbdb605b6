/** `swh-probe`: one ad-hoc probe from the command line; prints one JSON line, exit code = result. */
import { readFileSync } from "node:fs";
import { type CliCommand, CliUsageError, parseCliArgs, USAGE } from "./internal/cli-args.js";
import { probeHttp } from "./probe-http.js";
import { probePostgres } from "./probe-postgres.js";
import { ProbeConfigError, type ProbeResult } from "./probe-result.js";
import { probeTcp } from "./probe-tcp.js";

/** Runs the CLI with `argv` and writes to `out`/`err`; resolves to the exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(
  argv: readonly string[],
  io: { out: (line: string) => void; err: (line: string) => void; env?: NodeJS.ProcessEnv } = {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  },
): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (error) {
    io.err(`swh-probe: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    io.out(USAGE);
    return 0;
  }
  if (command.kind === "version") {
    io.out(`swh-probe ${packageVersion()}`);
    return 0;
  }
  let result: ProbeResult;
  try {
    result = await execute(command, io.env ?? process.env);
  } catch (error) {
    if (!(error instanceof ProbeConfigError || error instanceof CliUsageError || isFsError(error)))
      throw error;
    io.err(`swh-probe: ${error.message}`);
    return 2;
  }
  io.out(
    JSON.stringify({
      target: `${command.target.host}:${command.target.port}`,
      kind: command.kind,
      ...result,
    }),
  );
  return result.ok ? 0 : 1;
}

// Read at run time: the CLI runs from src/ (tests) and from dist/ (bin/swh-probe.js), both one level below it.
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

function isFsError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

function execute(
  command: Exclude<CliCommand, { kind: "help" | "version" }>,
  env: NodeJS.ProcessEnv,
): Promise<ProbeResult> {
  const read = (file: string | undefined) => (file === undefined ? undefined : readFileSync(file, "utf8"));
  const opts = { timeoutMs: command.timeoutMs };
  switch (command.kind) {
    case "tcp":
      return probeTcp(command.target, opts);
    case "http": {
      const caCert = read(command.caFile);
      return probeHttp(command.target, caCert ? { ...command.config, caCert } : command.config, opts);
    }
    case "postgres": {
      const password = command.passwordFile
        ? read(command.passwordFile)?.replace(/\r?\n$/, "")
        : env.PGPASSWORD;
      const pem = {
        caCert: read(command.caFile),
        clientCert: read(command.clientCertFile),
        clientKey: read(command.clientKeyFile),
      };
      const credentials = {
        user: command.user,
        ...(password !== undefined ? { password } : {}),
        ...(command.tlsMode ? { tlsMode: command.tlsMode } : {}),
        ...Object.fromEntries(Object.entries(pem).filter(([, v]) => v !== undefined)),
      };
      return probePostgres(
        command.target,
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
