import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { applyManifests } from "./apply.js";
import type { ControlPlaneInfo } from "./control-plane-info.js";
import { httpStatusOf } from "./internal/api-errors.js";
import { readState, STATE_ENV } from "./internal/state-file.js";
import { kubeConfigForToken, kubeconfigYaml } from "./kubeconfig.js";
import { type RestartApiServerOptions, restartApiServerFromState } from "./restart-api-server.js";

/** The control plane of this test run, as seen from a test file. */
export interface TestCluster {
  info: ControlPlaneInfo;
  /** Admin (system:masters) client config: for setup and assertions, never to test permissions. */
  kubeConfig: KubeConfig;
  /** Creates a fresh namespace whose name starts with `prefix` (default "t") and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
  /** ServiceAccount (created if missing) + TokenRequest (1 h) → a kubeconfig acting as exactly that SA. */
  serviceAccountKubeConfig(
    namespace: string,
    name: string,
  ): Promise<{ kubeConfig: KubeConfig; kubeconfigPath: string; token: string }>;
  /** Applies YAML/JSON manifests (multi-document string or objects) server-side with the admin identity. */
  apply(manifests: string | object[], opts?: { namespace?: string }): Promise<void>;
  /**
   * Restarts kube-apiserver in place (same port, same etcd): watches break, clients must recover.
   * `opts.whileDown` runs between the stop and the start.
   */
  restartApiServer(opts?: RestartApiServerOptions): Promise<void>;
}

/** Token lifetime for ServiceAccount kubeconfigs: longer than any test run, >= the 600 s minimum. */
const SA_TOKEN_SECONDS = 3600;

let cached: Promise<TestCluster> | undefined;

/**
 * The control plane started by the vitest globalSetup of this run (`@swh/testenv/global-setup`), found
 * through `$SWH_TESTENV_STATE`. Throws with a hint when the globalSetup is missing.
 */
export function testCluster(): Promise<TestCluster> {
  cached ??= Promise.resolve().then(() => {
    const statePath = process.env[STATE_ENV];
    if (!statePath) {
      throw new Error(
        `testCluster(): $${STATE_ENV} is not set — add "@swh/testenv/global-setup" to the vitest globalSetup ` +
          "of this config (integration tests only)",
      );
    }
    return clusterFromInfo(readState(statePath).info);
  });
  return cached;
}

/** A {@link TestCluster} for an already running control plane (e.g. one from `startControlPlane()`). */
export function clusterFromInfo(info: ControlPlaneInfo): TestCluster {
  const kubeConfig = kubeConfigForToken(info, info.adminToken, "swh-admin");
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    info,
    kubeConfig,
    async createNamespace(prefix = "t") {
      if (!/^[a-z0-9]([a-z0-9-]{0,40})$/.test(prefix)) {
        throw new Error(`createNamespace: prefix "${prefix}" must be a DNS label of at most 41 characters`);
      }
      const name = `${prefix}-${randomBytes(4).toString("hex")}`;
      await core.createNamespace({ body: { metadata: { name } } });
      return name;
    },
    async serviceAccountKubeConfig(namespace, name) {
      try {
        await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } });
      } catch (error) {
        if (httpStatusOf(error) !== 409) throw error;
      }
      const request = await core.createNamespacedServiceAccountToken({
        name,
        namespace,
        body: { spec: { audiences: [], expirationSeconds: SA_TOKEN_SECONDS } },
      });
      const token = request.status?.token;
      if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
      const userName = `system:serviceaccount:${namespace}:${name}`;
      const dir = join(info.workDir, "kubeconfigs");
      mkdirSync(dir, { recursive: true });
      const kubeconfigPath = join(dir, `${namespace}.${name}.kubeconfig`);
      writeFileSync(kubeconfigPath, kubeconfigYaml(info, token, userName), { mode: 0o600 });
      return { kubeConfig: kubeConfigForToken(info, token, userName), kubeconfigPath, token };
    },
    apply: (manifests, opts) => applyManifests(kubeConfig, manifests, opts),
    restartApiServer: (opts) => restartApiServerFromState(info.statePath, opts),
  };
}
