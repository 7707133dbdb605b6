/**
 * Runs the command blocks of an operator document (docs/install.md, docs/migrating.md) as written: a block
 * marked `<!-- tested: <name> -->` right above its ```sh fence is run with bash (errexit, pipefail) against the
 * test control plane, so a document whose commands stop working fails a test.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { kubeconfigYaml, type TestCluster } from "@swh/testenv";
import { DEPLOY_DIR, ROOT_DIR, type RunResult, requiredTool, run } from "./tools.ts";

/** A marker line, then a ```sh fence at the same indentation (blocks inside list items are indented). */
const MARKED_BLOCK = /^( *)<!-- tested: ([a-z0-9-]+) -->\n\1```sh\n([\s\S]*?)\n\1```/gm;

/** The tested command blocks of `doc` (a path relative to the repository root), by name. */
function docCommands(doc: string): Map<string, string> {
  const text = readFileSync(join(ROOT_DIR, doc), "utf8");
  const blocks = new Map<string, string>();
  for (const [, indent = "", name, body] of text.matchAll(MARKED_BLOCK)) {
    if (!name || body === undefined) continue;
    if (blocks.has(name)) throw new Error(`${doc}: two blocks are marked "tested: ${name}"`);
    const lines = body
      .split("\n")
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    blocks.set(name, lines.join("\n"));
  }
  return blocks;
}

/** A shell where a document's commands run: its own directory (the repository's `deploy/` and `apps/` linked in, as in a checkout), kubectl and helm on the PATH, talking to the test control plane as cluster-admin. */
export interface DocShell {
  /** The working directory (files the commands write, like my-values.yaml, land here). */
  dir: string;
  /** Runs block `name` of the document with `env` added; throws with its output when it exits non-zero. */
  run(name: string, env?: Record<string, string>): RunResult;
  /** Runs block `name` and returns the outcome whatever it is. */
  tryRun(name: string, env?: Record<string, string>): RunResult;
  /** Runs an ad-hoc command line in the same shell setting (for a test's own checks). */
  sh(command: string, env?: Record<string, string>): RunResult;
  /** `kubectl apply --server-side` of `objects` (written to a file in {@link dir}); returns the outcome. */
  apply(objects: object[]): RunResult;
}

/** A {@link DocShell} for `doc` against `cluster`. */
export function docShell(doc: string, cluster: TestCluster): DocShell {
  const blocks = docCommands(doc);
  const dir = mkdtempSync(join(tmpdir(), "swh-doc-"));
  symlinkSync(DEPLOY_DIR, join(dir, "deploy"));
  symlinkSync(join(ROOT_DIR, "apps"), join(dir, "apps"));
  const kubeconfig = join(dir, ".kube", "config");
  mkdirSync(dirname(kubeconfig), { recursive: true });
  writeFileSync(kubeconfig, kubeconfigYaml(cluster.info, cluster.info.adminToken, "swh-admin"), {
    mode: 0o600,
  });
  const baseEnv = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    HOME: dir,
    // The checkout's tool caches (Node, helm: scripts/toolchain.sh, build-tools.sh) stay where HOME had them.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
    PATH: `${dirname(requiredTool("helm"))}:${process.env.PATH ?? ""}`,
  };
  const sh = (command: string, env: Record<string, string> = {}) =>
    run("bash", ["-euo", "pipefail", "-c", command], { cwd: dir, env: { ...baseEnv, ...env } });
  const tryRun = (name: string, env: Record<string, string> = {}) => {
    const block = blocks.get(name);
    if (block === undefined) throw new Error(`${doc} has no block marked "tested: ${name}"`);
    return sh(block, env);
  };
  let applied = 0;
  return {
    dir,
    tryRun,
    sh,
    apply(objects) {
      const file = join(dir, `objects-${++applied}.json`);
      writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }));
      return sh(`kubectl apply --server-side -f ${file}`);
    },
    run(name, env) {
      const result = tryRun(name, env);
      if (result.status !== 0) {
        throw new Error(
          `${doc} block "${name}" exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
        );
      }
      return result;
    },
  };
}
