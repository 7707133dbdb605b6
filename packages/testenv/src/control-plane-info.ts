/**
 * How to reach a running control plane: plain JSON, so the vitest globalSetup can hand it to test
 * files (which run in other processes) through the state file.
 */
export interface ControlPlaneInfo {
  /** `https://127.0.0.1:<port>` of kube-apiserver. */
  server: string;
  /** PEM of the CA that signed the apiserver's serving certificate. */
  caPem: string;
  /** Bearer token of a `system:masters` user. Bypasses RBAC: never use it to test permissions. */
  adminToken: string;
  /** A kubeconfig file with the admin identity, for child processes and kubectl. */
  adminKubeconfigPath: string;
  /** Directory holding kube-apiserver, kube-controller-manager and etcd. */
  binDir: string;
  /** Temporary directory with every file of this control plane (data, certs, logs); removed by `stop()`. */
  workDir: string;
  /** JSON state file (pids, apiserver command line) used by `restartApiServer()` and teardown. */
  statePath: string;
  /** `http://127.0.0.1:<port>` of etcd. */
  etcdUrl: string;
  /** The audit log (JSON lines), when started with `auditLog`: read it with `readAuditLog()`. */
  auditLogPath?: string;
}
