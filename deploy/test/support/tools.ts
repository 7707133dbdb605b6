/**
 * Paths and runners the deploy tests share: the repository layout, the tools built by
 * deploy/scripts/build-tools.sh (helm, promtool) and the chart renderer.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

/** Absolute path of deploy/. */
export const DEPLOY_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** Absolute path of the repository root. */
export const ROOT_DIR = join(DEPLOY_DIR, "..");
/** The chart directory. */
export const CHART_DIR = join(DEPLOY_DIR, "chart");
/** Kubernetes version the chart is rendered for (the test control plane's). */
export const KUBE_VERSION = "1.35.4";

/** The Node flags an app's image starts it with: `swh.nodeFlags` of its package.json (ADR 0011). */
export function nodeFlags(app: string): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT_DIR, "apps", app, "package.json"), "utf8"));
  return pkg.swh?.nodeFlags ?? [];
}

/** Outcome of a finished child process. */
export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** How long one command may run (the slowest, `release.sh --push`, takes about 1–2 minutes here). */
const RUN_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `command` to completion (no shell) and returns its exit status and output. A command still running after
 * `RUN_TIMEOUT_MS` is killed and throws: the caller blocks the test runner meanwhile (spawnSync), so a hung command
 * must fail the test rather than hold up the whole run.
 */
export function run(
  command: string,
  args: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): RunResult {
  const result = spawnSync(command, args, {
    cwd: opts.cwd ?? DEPLOY_DIR,
    env: opts.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    // No stdin: Node's default stdin is a socket pair, and bash run with a socket on stdin at SHLVL < 2 (as in CI)
    // takes itself for an ssh session and sources /etc/bash.bashrc, which fails under `set -u`.
    stdio: ["ignore", "pipe", "pipe"],
    timeout: RUN_TIMEOUT_MS,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Path of a built tool (built on first use by deploy/scripts/build-tools.sh, a no-op once cached), or undefined when it cannot be built here. */
function tool(name: "helm" | "promtool"): string | undefined {
  const built = run("bash", [join(DEPLOY_DIR, "scripts/build-tools.sh"), name]);
  const binDir = built.stdout.trim().split("\n").at(-1) ?? "";
  const path = join(binDir, name);
  return built.status === 0 && existsSync(path) ? path : undefined;
}

/** Path of a built tool that the tests cannot do without. */
export function requiredTool(name: "helm" | "promtool"): string {
  const path = tool(name);
  if (!path) throw new Error(`${name} was not built by deploy/scripts/build-tools.sh`);
  return path;
}

/** A rendered Kubernetes object, as plain data. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are arbitrary YAML; tests index into them
  [field: string]: any;
}

/** Parses a multi-document YAML string into its non-empty documents. */
export function parseYamlDocuments(text: string): RenderedObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]?.message}`);
      return doc.toJS() as RenderedObject | null;
    })
    .filter((obj): obj is RenderedObject => obj !== null);
}

/** What `helm template` is given: the chart (default `deploy/chart`, or a packaged `.tgz`), values files, `--set`
 * values, namespace, release name. */
export interface TemplateOptions {
  chart?: string;
  valuesFiles?: string[];
  set?: string[];
  namespace?: string;
  release?: string;
  /** `--kube-version` (default {@link KUBE_VERSION}); null renders as a GitOps tool does without a cluster. */
  kubeVersion?: string | null;
}

/** `helm template` of the chart; throws with helm's stderr when rendering fails. */
export function helmTemplate(opts: TemplateOptions = {}): RenderedObject[] {
  const result = helmTemplateRaw(opts);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseYamlDocuments(result.stdout);
}

/** `helm template` of the chart, without interpreting the result. */
export function helmTemplateRaw(opts: TemplateOptions = {}): RunResult {
  const chart = opts.chart ?? CHART_DIR;
  const args = ["template", opts.release ?? "swh", chart, "--namespace", opts.namespace ?? "swh-system"];
  const kubeVersion = opts.kubeVersion === undefined ? KUBE_VERSION : opts.kubeVersion;
  if (kubeVersion !== null) args.push("--kube-version", kubeVersion);
  for (const file of opts.valuesFiles ?? []) args.push("--values", file);
  for (const value of opts.set ?? []) args.push("--set", value);
  return run(requiredTool("helm"), args);
}

/** The object of `kind` named `name`; throws when absent so a test failure names what is missing. */
export function find(objects: readonly RenderedObject[], kind: string, name: string): RenderedObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`,
    );
  return found;
}
