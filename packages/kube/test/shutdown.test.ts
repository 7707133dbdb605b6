import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const app = fileURLToPath(new URL("./fixtures/shutdown-app.ts", import.meta.url));

/** Starts the fixture app in its own Node process and resolves once it printed "ready". */
async function start(mode: string) {
  const child = spawn(process.execPath, [app, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += String(d);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", () => out.includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`exited early (${code}): ${out}`)));
  });
  return { child, output: () => out };
}

const exitCode = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

// Each test starts a Node process, which alone can take several seconds on a loaded CI runner.
describe("onShutdown", { timeout: 60_000 }, () => {
  it("runs every handler once, in order, on SIGTERM and exits 0", async () => {
    const { child, output } = await start("ok");
    const exited = exitCode(child);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output()).toBe("ready\nfirst SIGTERM\nsecond\n");
  });

  it("still runs later handlers when one fails, and exits 1", async () => {
    const { child, output } = await start("fail");
    const exited = exitCode(child);
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    expect(output()).toBe("ready\nfirst SIGINT\nsecond\n");
  });

  it("a second signal while handlers run exits at once", async () => {
    const { child, output } = await start("slow");
    const exited = exitCode(child);
    child.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      const check = () =>
        output().includes("first SIGTERM") ? resolve() : child.stdout?.once("data", check);
      check();
    });
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
  });
});
