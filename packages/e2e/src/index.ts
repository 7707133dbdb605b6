export { type ApiMeter, type ApiUsage, describeRequest, startApiMeter } from "./api-meter.js";
export { diffCounts, readApiServerMetrics, writesByResource } from "./api-server-metrics.js";
export { type AppProcess, type AppProcessOptions, startApp, tail } from "./app-process.js";
export { type Backend, startHttpBackend, startTcpBackend } from "./backends.js";
export {
  type BalancerPort,
  type BalancerTraffic,
  measureBalancers,
  renderBalancerTraffic,
} from "./balancer-traffic.js";
export {
  type BusyboxWebOptions,
  busyboxWebDeployment,
  HEALTHZ_FILE,
  WEB_CONTAINER,
} from "./busybox-web.js";
export { type EndpointRow, endpointRows, renderEndpointTable, tableSignature } from "./endpoint-table.js";
export { freePort } from "./free-port.js";
export {
  createMailWorld,
  type DrainPod,
  drainByAnnotation,
  MAIL_NODES,
  type MailPod,
  mailBalancers,
  mailScenario,
} from "./mail-world.js";
export { podTable } from "./pod-table.js";
export { type ProcStats, readProcStats } from "./proc-stats.js";
export {
  INSTALL_NAMESPACE,
  installProduct,
  METRICS_READER,
  Product,
  type ProductOptions,
} from "./product.js";
export { buildProductImages } from "./product-images.js";
export { parsePromText, type Sample, sumSamples } from "./prom-text.js";
export { grantedPermissions, type MeasuredUse, measuredUse, unusedPermissions } from "./rbac-usage.js";
export { readSwh } from "./read-swh.js";
export { type AppName, bundlePath, MANIFESTS_DIR, nodeFlags, REPO_ROOT } from "./repo-paths.js";
export { hasEndpoint, readEndpoints, runScenario, type ScenarioStep, type StepOutcome } from "./scenario.js";
export {
  CLIENT_ADDRESS,
  countHttp,
  countPostgres,
  countTcp,
  formatCount,
  type PostgresLogin,
  type StreamCount,
  streamTraffic,
  type TrafficCount,
  type TrafficStream,
} from "./traffic.js";
