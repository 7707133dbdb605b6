/**
 * `@swh/probes` as a user installs it: packed as for publishing, installed with npm from those tarballs alone
 * (offline) into an empty directory, then `npx swh-probe` run there against real listeners. It must stand on its
 * own: `pg` (and what pg needs) is its one third-party dependency, and no Kubernetes client comes along.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked } from "./helpers/packed-install.js";
import { closedPort, startTcpServer } from "./helpers/servers.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
/** The workspace packages a user installs with `@swh/probes`: itself and what it is built on. */
const OURS = ["@swh/probes", "@swh/crd-types", "@swh/flags"];
const { version: VERSION } = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  version: string;
};

let installed: Awaited<ReturnType<typeof installPacked>>;

beforeAll(async () => {
  installed = await installPacked(PACKAGE_DIR);
}, 120_000);
afterAll(() => installed?.remove());

/** Runs `npx swh-probe …` in the install directory; resolves to its exit code and output. */
function npxSwhProbe(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "npx",
      ["--no-install", "swh-probe", ...argv],
      { cwd: installed.dir, env: installed.env },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: child.exitCode, stdout, stderr });
      },
    );
  });
}

/** Every package directly in `node_modules` (scoped ones as `@scope/name`). */
function installedPackages(): string[] {
  const modules = join(installed.dir, "node_modules");
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith("."))
    .flatMap((entry) =>
      entry.startsWith("@") ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry],
    )
    .sort();
}

/** `name` and every package it depends on (optional ones when installed), read from the installed manifests. */
function closureOf(name: string, into = new Set<string>()): Set<string> {
  const path = join(installed.dir, "node_modules", name, "package.json");
  if (into.has(name) || !existsSync(path)) return into;
  into.add(name);
  const manifest = JSON.parse(readFileSync(path, "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }))
    closureOf(dep, into);
  return into;
}

describe("@swh/probes installed from its tarball", () => {
  it("brings pg and pg's dependencies, and nothing of Kubernetes", () => {
    const packages = installedPackages();
    expect(packages).toEqual(expect.arrayContaining([...OURS, "pg", "pg-protocol", "pg-pool", "pg-types"]));
    expect(packages).not.toContain("@swh/kube");
    expect(packages).not.toContain("@kubernetes/client-node");
    // Everything else is pg's: no other third-party package ships with the prober.
    const pgs = closureOf("pg");
    expect(packages.filter((name) => !OURS.includes(name) && !pgs.has(name))).toEqual([]);
  });

  it("runs `npx swh-probe --version` and a TCP probe", async () => {
    const version = await npxSwhProbe("--version");
    expect(version).toMatchObject({ code: 0, stdout: `swh-probe ${VERSION}\n` });

    const target = await startTcpServer(HOST);
    const probe = await npxSwhProbe("tcp", `${HOST}:${target.port}`, "--timeout", "10s", "--output", "json");
    expect(probe.code).toBe(0);
    expect(JSON.parse(probe.stdout)).toMatchObject({ kind: "tcp", ok: true });
    expect(target.accepted()).toBe(1);
  });

  it("loads pg for a PostgreSQL probe: a refused connection fails as ConnectionRefused", async () => {
    const port = await closedPort(HOST);
    const probe = await npxSwhProbe(
      "postgres",
      `${HOST}:${port}`,
      "--user",
      "app",
      "--tls-mode",
      "Disabled",
      "--output",
      "json",
    );
    expect(probe.stderr).toBe("");
    expect(probe.code).toBe(1);
    expect(JSON.parse(probe.stdout)).toMatchObject({
      kind: "postgres",
      ok: false,
      reason: "ConnectionRefused",
    });
  });
});
