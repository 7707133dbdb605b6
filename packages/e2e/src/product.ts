/**
 * Installs and runs the product on a test control plane exactly as an operator would on a cluster: the CRD from
 * @swh/crd-types, the namespace and RBAC rendered from the Helm chart (deploy/manifests), and the apps as
 * processes acting as their own ServiceAccounts — so a missing permission fails here as it would in production.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiextensionsV1Api } from "@kubernetes/client-node";
import { crdManifest, GROUP, PLURAL } from "@swh/crd-types";
import { type TestCluster, waitFor } from "@swh/testenv";
import { type AppProcess, startApp } from "./app-process.js";
import { MANIFESTS_DIR } from "./repo-paths.js";

/** Namespace the chart installs into (deploy/manifests/namespace.yaml). */
export const INSTALL_NAMESPACE = "swh-system";
const MANIFEST_FILES = [
  "namespace.yaml",
  "rbac-controller.yaml",
  "rbac-agent.yaml",
  "rbac-agent-credentials.yaml",
];

/** Applies the CRD and the chart's namespace and RBAC; waits until the CRD is Established. Idempotent. */
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
  readonly logDir: string;
  readonly controllers = new Map<string, AppProcess>();
  readonly agents = new Map<string, AppProcess>();
  #kubeconfigs = new Map<string, Promise<string>>();
  #counter = 0;

  constructor(
    readonly cluster: TestCluster,
    readonly options: ProductOptions = {},
  ) {
    this.logDir = options.logDir ?? mkdtempSync(join(tmpdir(), "swh-e2e-logs-"));
  }

  /** Starts one controller replica (leader election on) and waits until it is ready. */
  async startController(): Promise<AppProcess> {
    const name = `swh-controller-${++this.#counter}`;
    const app = await startApp({
      app: "controller",
      name,
      kubeconfigPath: await this.#kubeconfig("swh-controller"),
      namespace: INSTALL_NAMESPACE,
      logDir: this.logDir,
      args: [`--log-level=${this.options.logLevel ?? "info"}`, ...(this.options.controllerArgs ?? [])],
      nodeArgs: this.options.nodeArgs ?? [],
    });
    this.controllers.set(name, app);
    void app.exited.then(() => this.controllers.delete(name));
    await app.ready();
    return app;
  }

  /** Starts the agent of `node` and waits until it is ready. */
  async startAgent(node: string): Promise<AppProcess> {
    const app = await startApp({
      app: "agent",
      name: `swh-agent-${node}-${++this.#counter}`,
      kubeconfigPath: await this.#kubeconfig("swh-agent"),
      namespace: INSTALL_NAMESPACE,
      logDir: this.logDir,
      env: { NODE_NAME: node },
      args: [`--log-level=${this.options.logLevel ?? "info"}`, ...(this.options.agentArgs ?? [])],
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

  #kubeconfig(serviceAccount: string): Promise<string> {
    let path = this.#kubeconfigs.get(serviceAccount);
    if (path === undefined) {
      path = this.cluster
        .serviceAccountKubeConfig(INSTALL_NAMESPACE, serviceAccount)
        .then((r) => r.kubeconfigPath);
      this.#kubeconfigs.set(serviceAccount, path);
    }
    return path;
  }
}
