/**
 * Where both apps find their API server and credentials, in one order: the `--kubeconfig` file when given; in a pod
 * (`KUBERNETES_SERVICE_HOST` set) the pod's ServiceAccount; otherwise client-node's default (`KUBECONFIG`, then
 * `~/.kube/config`). In a pod the ServiceAccount comes before a stray `KUBECONFIG` or home file, so the apps always
 * run as the identity the chart's RBAC and admission policies were written for. Every request shares one connection
 * pool (`PooledKubeConfig`).
 */
import { PooledKubeConfig } from "./pooled-kube-config.js";

/** The kubeconfig of an app, from `file` (the `--kubeconfig` flag) or as the file comment says. */
export function loadKubeConfig(file: string | undefined): PooledKubeConfig {
  const kubeConfig = new PooledKubeConfig();
  if (file !== undefined) kubeConfig.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}
