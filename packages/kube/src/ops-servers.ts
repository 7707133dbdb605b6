/**
 * An app's two ops servers: /healthz and /readyz without authentication (the kubelet probes them, so they serve
 * nothing else), and /metrics over HTTPS for authorised callers only (ADR 0017: the API server decides who may
 * read). Either is off when its address is undefined.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Registry } from "prom-client";
import type { BindAddress } from "./bind-address.js";
import { startHealthServer } from "./health-server.js";
import type { OpsServer } from "./internal/listen.js";
import type { Logger } from "./logger.js";
import { cachedMetricsAccess, kubeMetricsAccess, type MetricsAccess } from "./metrics-access.js";
import { startMetricsServer } from "./metrics-server.js";
import type { CertificateFiles } from "./serving-certificate.js";

/** Where and how the ops servers listen. */
export interface OpsServerOptions {
  kubeConfig: KubeConfig;
  /** Common name of the self-signed serving certificate (no `metricsTls`): the app's name. */
  commonName: string;
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
        commonName: opts.commonName,
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
