/**
 * The repository's Helm chart (deploy/chart) rendered by helm itself, for tests that need an object the chart
 * renders only for non-default values (deploy/manifests holds the default rendering). helm is the one
 * deploy/scripts/build-tools.sh builds (a no-op once cached).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestCluster } from "./test-cluster.js";

const DEPLOY_DIR = fileURLToPath(new URL("../../../deploy/", import.meta.url));
/** Release and namespace of deploy/manifests (deploy/scripts/render-manifests.sh) and of {@link installChart}. */
const RELEASE = "swh";
const NAMESPACE = "swh-system";
const KUBE_VERSION = "1.35.4";

/** `helm template` of deploy/chart as release `swh` in `swh-system`, with `--set` values, limited to `showOnly`. */
export function renderChart(opts: { set?: readonly string[]; showOnly?: readonly string[] } = {}): string {
  const args = [
    "template",
    RELEASE,
    `${DEPLOY_DIR}chart`,
    "--namespace",
    NAMESPACE,
    "--kube-version",
    KUBE_VERSION,
  ];
  for (const value of opts.set ?? []) args.push("--set", value);
  for (const template of opts.showOnly ?? []) args.push("--show-only", template);
  return execFileSync(helmPath(), args, { encoding: "utf8" });
}

/**
 * Applies what the chart renders for `agent.credentialsNamespaces=<namespaces>` (ADR 0020): the agent's
 * credentials ClusterRole and one RoleBinding of it per namespace.
 */
export async function enableCredentialsNamespaces(
  cluster: TestCluster,
  namespaces: readonly string[],
): Promise<void> {
  await cluster.apply(
    renderChart({
      set: [`agent.credentialsNamespaces={${namespaces.join(",")}}`],
      showOnly: ["templates/rbac-agent-credentials.yaml"],
    }),
  );
}

/**
 * `helm install` of deploy/chart as release `swh` into `swh-system`, as an operator installs it, with `--set`
 * values; waits (helm `--wait`) until its Deployment and DaemonSet are ready. For a cluster with a real node.
 */
export function installChart(
  cluster: TestCluster,
  opts: { set?: readonly string[]; timeout?: string } = {},
): string {
  const args = [
    "install",
    RELEASE,
    `${DEPLOY_DIR}chart`,
    "--namespace",
    NAMESPACE,
    "--create-namespace",
    "--kubeconfig",
    cluster.info.adminKubeconfigPath,
    "--wait",
    "--timeout",
    opts.timeout ?? "3m",
  ];
  for (const value of opts.set ?? []) args.push("--set", value);
  try {
    return execFileSync(helmPath(), args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer | string }).stderr ?? "").trim();
    throw new Error(`helm install failed: ${stderr || String(error)}`, { cause: error });
  }
}

function helmPath(): string {
  const out = execFileSync("bash", [`${DEPLOY_DIR}scripts/build-tools.sh`, "helm"], { encoding: "utf8" });
  return `${out.trim().split("\n").at(-1) ?? ""}/helm`;
}
