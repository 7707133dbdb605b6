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
  it("exits 0 for SERVING and 1 with reason GRPCNotServing for NOT_SERVING, printing JSON when piped", async () => {
    const { port } = await startHealthServer(HOST, { "": "SERVING", orders: "NOT_SERVING" });
    const serving = await run("grpc", `${HOST}:${port}`, "--timeout", "10s");
    expect(serving.code).toBe(0);
    expect(JSON.parse(serving.stdout)).toMatchObject({ kind: "grpc", ok: true, message: "SERVING" });
    const down = await run("grpc", `${HOST}:${port}`, "--service", "orders", "--timeout", "10s");
    expect(down.code).toBe(1);
    expect(JSON.parse(down.stdout)).toMatchObject({ kind: "grpc", ok: false, reason: "GRPCNotServing" });
  });

  it("exits 2 with the usage text on a bad flag", async () => {
    const { code, stdout, stderr } = await run("grpc", `${HOST}:50051`, "--tls=maybe");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("--tls must be true or false");
    expect(stderr).toContain("usage: swh-probe <tcp|http|grpc|postgres>");
  });
});
