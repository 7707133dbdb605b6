export { type AppBundle, type AppBundleCheck, appBundleChecks } from "./app-bundle-checks.js";
export { parseManifests } from "./apply.js";
export { type AuditEvent, type AuditLogOptions, readAuditLog } from "./audit-log.js";
export { enableCredentialsNamespaces, installChart, renderChart } from "./chart.js";
export {
  type ControlPlane,
  type NodeServingOptions,
  type StartControlPlaneOptions,
  startControlPlane,
} from "./control-plane.js";
export type { ControlPlaneInfo } from "./control-plane-info.js";
export { type ControlPlanePids, controlPlanePids } from "./control-plane-pids.js";
export { type CountingProxy, type SeenRequest, startCountingProxy } from "./counting-proxy.js";
export { execInPod } from "./exec.js";
export { type HttpsAnswer, httpsGet } from "./https-get.js";
export { type KubeProxy, type StartKubeProxyOptions, startKubeProxy } from "./kube-proxy.js";
export { type ClusterEndpoint, kubeConfigForToken, kubeconfigYaml } from "./kubeconfig.js";
export { type CertificateAuthority, type CertKeyPair, type IssueOptions, makeCa } from "./make-ca.js";
export { BUSYBOX_IMAGE } from "./node-images.js";
export { createNode, deleteNode, type NodeSpecLite, setNodeReady, ZONE_LABEL } from "./nodes.js";
export {
  OUTSIDE_CLIENT_ADDRESS,
  type OutsideClient,
  type OutsideCount,
  startOutsideClient,
} from "./outside-client.js";
export {
  annotatePod,
  applyReadinessGates,
  createPod,
  forceDeletePod,
  markPodTerminating,
  type PodSpecLite,
  setPodReady,
} from "./pods.js";
export {
  type PostgresServer,
  type PostgresUser,
  type StartPostgresOptions,
  startPostgres,
} from "./postgres.js";
export {
  type RealNodeCluster,
  type RealNodeClusterOptions,
  startRealNodeCluster,
} from "./real-node.js";
export { type RedisServer, startRedis } from "./redis.js";
export type { RestartApiServerOptions } from "./restart-api-server.js";
export { SecretVolume } from "./secret-volume.js";
export { clusterFromInfo, type TestCluster, testCluster } from "./test-cluster.js";
export { type WaitForOptions, waitFor } from "./wait-for.js";
