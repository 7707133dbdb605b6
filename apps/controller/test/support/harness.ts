/**
 * Integration-test harness: installs the CRD and the controller's RBAC exactly as `deploy/manifests/` ships them,
 * and gives the controller a kubeconfig acting as its own ServiceAccount through a counting proxy.
 */
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import { crdManifest } from "@swh/crd-types";
import { type CountingProxy, kubeConfigForToken, startCountingProxy, type TestCluster } from "@swh/testenv";

/** The install namespace of the shipped manifests. */
export const INSTALL_NAMESPACE = "swh-system";
const manifest = (name: string) =>
  readFileSync(new URL(`../../../../deploy/manifests/${name}`, import.meta.url), "utf8");

/** Applies the namespace, the CRD and the controller's RBAC (idempotent: server-side apply). */
export async function installController(cluster: TestCluster): Promise<void> {
  await cluster.apply(manifest("namespace.yaml"));
  await cluster.apply([crdManifest()]);
  await cluster.apply(manifest("rbac-controller.yaml"));
}

/** A kubeconfig acting as the controller's ServiceAccount, through a new counting proxy (and its file path). */
export async function controllerIdentity(
  cluster: TestCluster,
): Promise<{ kubeConfig: KubeConfig; proxy: CountingProxy; token: string }> {
  const { token } = await cluster.serviceAccountKubeConfig(INSTALL_NAMESPACE, "swh-controller");
  const proxy = await startCountingProxy({ server: cluster.info.server, caPem: cluster.info.caPem });
  return { kubeConfig: kubeConfigForToken(proxy, token, "swh-controller"), proxy, token };
}
