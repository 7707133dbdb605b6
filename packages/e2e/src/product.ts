/**
 * Installs and runs the product on a test control plane exactly as an operator would on a cluster: the CRD from
 * @swh/crd-types, the namespace and RBAC rendered from the Helm chart (deploy/manifests), and the apps as
 * processes acting as their own ServiceAccounts — so a missing permission fails here as it would in production.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiextensionsV1Api } from "@kubernetes/client-node";
import { crdManifest, GROUP, PLURAL } from "@swh/crd-types";
import { type ClusterEndpoint, kubeconfigYaml, type TestCluster, waitFor } from "@swh/testenv";
import { type AppProcess, startApp } from "./app-process.js";
import { MANIFESTS_DIR } from "./repo-paths.js";

/** Namespace the chart installs into (deploy/manifests/namespace.yaml). */
export const INSTALL_NAMESPACE = "swh-system";
const MANIFEST_FILES = [
  "namespace.yaml",
  "rbac-controller.yaml",
  "rbac-agent.yaml",
  "rbac-agent-credentials.yaml",
  "rbac-metrics.yaml",
];
/** The ServiceAccount (in the install namespace) `Product` scrapes metrics as, bound to the chart's metrics-reader. */
export const METRICS_READER = "metrics-reader";

/**
 * Applies the CRD and the chart's namespace and RBAC, and binds `METRICS_READER` to the chart's metrics-reader
 * ClusterRole as an operator would through `metrics.readers`; waits until the CRD is Established. Idempotent.
 */
export async function installProduct(cluster: TestCluster): Promise<void> {
  await cluster.apply([crdManifest()]);
  const api = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
  await waitFor("CRD Established", async () => {
    const crd = await api.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
  for (const file of MANIFEST_FILES) {
    await cluster.apply(readFileSync(join(MANIFESTS_DIR, file), "utf8"));
  }
  await cluster.apply([
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `swh-${METRICS_READER}-e2e` },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "swh-metrics-reader" },
      subjects: [{ kind: "ServiceAccount", name: METRICS_READER, namespace: INSTALL_NAMESPACE }],
    },
  ]);
}

export interface ProductOptions {
  /** Extra flags for every controller (e.g. a short --node-not-ready-grace). */
  controllerArgs?: string[];
  agentArgs?: string[];
  logLevel?: "debug" | "info" | "warn" | "error";
  /** Node flags for every app process (default: none, as `node /app/main.mjs`). */
  nodeArgs?: string[];
  logDir?: string;
}

/** Controllers and agents running as processes against one control plane. */
export class Product {
  readonly cluster: TestCluster;
  readonly options: ProductOptions;
  readonly logDir: string;
  readonly controllers = new Map<string, AppProcess>();
  readonly agents = new Map<string, AppProcess>();
  #kubeconfigs = new Map<string, Promise<{ kubeconfigPath: string; token: string }>>();
  #counter = 0;

  constructor(cluster: TestCluster, options: ProductOptions = {}) {
    this.cluster = cluster;
    this.options = options;
    this.logDir = options.logDir ?? mkdtempSync(join(tmpdir(), "swh-e2e-logs-"));
  }

  /** Starts one controller replica (leader election on) and waits until it is ready; `extraArgs` after the options'. */
  async startController(extraArgs?: string[]): Promise<AppProcess> {
    const name = `swh-controller-${++this.#counter}`;
    const app = await startApp({
      app: "controller",
      name,
      kubeconfigPath: (await this.#identity("swh-controller")).kubeconfigPath,
      namespace: INSTALL_NAMESPACE,
      logDir: this.logDir,
      metricsToken: (await this.#identity(METRICS_READER)).token,
      args: [
        `--log-level=${this.options.logLevel ?? "info"}`,
        ...(this.options.controllerArgs ?? []),
        ...(extraArgs ?? []),
      ],
      nodeArgs: this.options.nodeArgs ?? [],
    });
    this.controllers.set(name, app);
    void app.exited.then(() => this.controllers.delete(name));
    await app.ready();
    return app;
  }

  /**
   * Starts the agent of `node` and waits until it is ready; `extraArgs` after the options'. `opts.via` sends its
   * API requests to another endpoint (e.g. an `ApiMeter` in front of the API server), with the same token.
   */
  async startAgent(
    node: string,
    extraArgs?: string[],
    opts: { via?: ClusterEndpoint } = {},
  ): Promise<AppProcess> {
    // The name is a log file name too: a node name may have 253 characters, a file name at most 255 bytes.
    const name = `swh-agent-${node.slice(0, 63)}-${++this.#counter}`;
    const identity = await this.#identity("swh-agent");
    let kubeconfigPath = identity.kubeconfigPath;
    if (opts.via !== undefined) {
      kubeconfigPath = join(this.logDir, `${name}.kubeconfig`);
      const user = `system:serviceaccount:${INSTALL_NAMESPACE}:swh-agent`;
      writeFileSync(kubeconfigPath, kubeconfigYaml(opts.via, identity.token, user), { mode: 0o600 });
    }
    const app = await startApp({
      app: "agent",
      name,
      kubeconfigPath,
      namespace: INSTALL_NAMESPACE,
      logDir: this.logDir,
      metricsToken: (await this.#identity(METRICS_READER)).token,
      env: { NODE_NAME: node },
      args: [
        `--log-level=${this.options.logLevel ?? "info"}`,
        ...(this.options.agentArgs ?? []),
        ...(extraArgs ?? []),
      ],
      nodeArgs: this.options.nodeArgs ?? [],
    });
    this.agents.set(node, app);
    void app.exited.then(() => {
      if (this.agents.get(node) === app) this.agents.delete(node);
    });
    await app.ready();
    return app;
  }

  /** Stops every process gracefully (SIGTERM). */
  async stop(): Promise<void> {
    await Promise.all([...this.controllers.values(), ...this.agents.values()].map((p) => p.stop()));
  }

  /** A ServiceAccount's kubeconfig file and token in the install namespace (made once). */
  #identity(serviceAccount: string): Promise<{ kubeconfigPath: string; token: string }> {
    let identity = this.#kubeconfigs.get(serviceAccount);
    if (identity === undefined) {
      identity = this.cluster.serviceAccountKubeConfig(INSTALL_NAMESPACE, serviceAccount);
      this.#kubeconfigs.set(serviceAccount, identity);
    }
    return identity;
  }
}
