/**
 * The built `swh-probe` executable (bin/swh-probe.js → dist/cli.js, built by `test:integration`'s build step) as a
 * user runs it: a process, its exit code, stdout and stderr, against a real grpc-js health server.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startHealthServer } from "./helpers/grpc-servers.js";

const BIN = fileURLToPath(new URL("../bin/swh-probe.js", import.meta.url));
const HOST = "127.0.0.1";

/** Runs the executable to its end; resolves to its exit code and output (never rejects on a non-zero exit). */
function run(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [BIN, ...argv], (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

describe("bin/swh-probe.js grpc", () => {
  it("exits 0 for SERVING and 1 with reason GRPCNotServing for NOT_SERVING, as one JSON line when asked", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING", orders: "NOT_SERVING" });
    const serving = await run("grpc", `${HOST}:${port}`, "--output", "json", "--timeout", "10s");
    expect(serving.code).toBe(0);
    expect(JSON.parse(serving.stdout)).toMatchObject({ kind: "grpc", ok: true, message: "SERVING" });
    const down = await run(
      "grpc",
      `${HOST}:${port}`,
      "--service",
      "orders",
      "--output",
      "json",
      "--timeout",
      "10s",
    );
    expect(down.code).toBe(1);
    expect(JSON.parse(down.stdout)).toMatchObject({ kind: "grpc", ok: false, reason: "GRPCNotServing" });
  });

  it("prints one text line to a pipe by default, and with -v when each phase was reached", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING" });
    const target = `${HOST}:${port}`;
    const plain = await run("grpc", target, "--timeout", "10s");
    expect(plain).toMatchObject({ code: 0, stderr: "" });
    expect(plain.stdout).toMatch(new RegExp(`^PASS grpc ${target}: SERVING in [\\d.]+ ms\n$`));
    const verbose = await run("grpc", target, "-v", "--timeout", "10s");
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toMatch(
      new RegExp(
        `^PASS grpc ${target}: SERVING in [\\d.]+ ms \\(connect [\\d.]+ ms, first byte [\\d.]+ ms, total [\\d.]+ ms\\)\n$`,
      ),
    );
  });

  it("exits 2 with one line on stderr that points to --help", async () => {
    for (const [argv, message] of [
      [["grpc", `${HOST}:50051`, "--tls=maybe"], '--tls must be true or false, got "maybe"'],
      [
        ["grpc", `${HOST}:50051`, "--timeout", "2"],
        '--timeout: "2" has no unit: use 2s or 2000ms for seconds, 2ms for milliseconds',
      ],
      [["grpc", `${HOST}:50051`, "--path", "/x"], "--path does not apply to grpc probes (only to http)"],
    ] as const) {
      const { code, stdout, stderr } = await run(...argv);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toBe(`swh-probe: ${message} (try --help)\n`);
    }
  });
});
