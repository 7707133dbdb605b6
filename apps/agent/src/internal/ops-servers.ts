/**
 * The agent's two ops servers: /healthz and /readyz without authentication (the kubelet probes them, so they serve
 * nothing else), and /metrics over HTTPS for authorised callers only. Either is off when its address is undefined.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import {
  type CertificateFiles,
  cachedMetricsAccess,
  kubeMetricsAccess,
  type Logger,
  type MetricsAccess,
  type OpsServer,
  startHealthServer,
  startMetricsServer,
} from "@swh/kube";
import type { Registry } from "prom-client";
import type { BindAddress } from "../config.js";

/** Where and how the ops servers listen. */
export interface OpsServerOptions {
  kubeConfig: KubeConfig;
  metricsBindAddress?: BindAddress | undefined;
  metricsTls?: CertificateFiles | undefined;
  metricsAccess?: MetricsAccess | undefined;
  healthBindAddress?: BindAddress | undefined;
}

/** Running ops servers: their bound ports (0 resolved) and one close for all. */
export interface OpsServers {
  readonly ports: { metrics?: number; health?: number };
  close(): Promise<void>;
}

/** Starts the servers `opts` asks for; if one fails to start, the others are closed and the error thrown. */
export async function startOpsServers(
  opts: OpsServerOptions,
  registry: Registry,
  ready: () => boolean,
  log: Logger,
): Promise<OpsServers> {
  const servers: OpsServer[] = [];
  const ports: { metrics?: number; health?: number } = {};
  const close = async () => {
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
  };
  try {
    if (opts.healthBindAddress) {
      const server = await startHealthServer({
        ...opts.healthBindAddress,
        ready,
        logger: log.child({ server: "health" }),
      });
      servers.push(server);
      ports.health = server.port;
    }
    if (opts.metricsBindAddress) {
      const server = await startMetricsServer({
        ...opts.metricsBindAddress,
        registry,
        access: opts.metricsAccess ?? cachedMetricsAccess(kubeMetricsAccess(opts.kubeConfig)),
        certificateFiles: opts.metricsTls,
        commonName: "swh-agent",
        logger: log.child({ server: "metrics" }),
      });
      servers.push(server);
      ports.metrics = server.port;
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { ports, close };
}
