/**
 * The per-node heartbeat: the agent renews its Lease (`agentLeaseName(node)`, `spec.holderIdentity` = the full
 * node name) in its namespace so the controller can tell a node whose agent stopped (slices kept as they are,
 * reported) from a node that is gone (SPEC §5, ADR 0013).
 */
import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import { type Logger, sleepUnlessAborted } from "@swh/kube";
import { agentLeaseName } from "@swh/slice-writer";

export interface HeartbeatOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  nodeName: string;
  /** How often the Lease is renewed. */
  intervalMs: number;
  /** `spec.leaseDurationSeconds`: how long a renewal counts. */
  leaseDurationSeconds: number;
  logger: Logger;
  signal: AbortSignal;
}

/** Renews the node's heartbeat Lease every `intervalMs` until `signal` aborts; failures are logged and retried. */
export async function runHeartbeat(opts: HeartbeatOptions): Promise<void> {
  const api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
  const name = agentLeaseName(opts.nodeName);
  const log = opts.logger.child({ lease: `${opts.namespace}/${name}` });
  let failing = false;
  while (!opts.signal.aborted) {
    try {
      await renewLease(api, name, opts);
      if (failing) log.info("heartbeat renewed again");
      failing = false;
    } catch (err) {
      if (!failing) log.warn("heartbeat renewal failed; retrying", { err: summarize(err) });
      failing = true;
    }
    await sleepUnlessAborted(failing ? Math.min(opts.intervalMs, 2_000) : opts.intervalMs, opts.signal);
  }
}

/** Creates the Lease, or updates its renew time (replace with the read resourceVersion: conflicts retry). */
export async function renewLease(
  api: CoordinationV1Api,
  name: string,
  opts: HeartbeatOptions,
): Promise<void> {
  const now = new V1MicroTime();
  let current: V1Lease | undefined;
  try {
    current = await api.readNamespacedLease({ name, namespace: opts.namespace });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  const spec = {
    holderIdentity: opts.nodeName,
    leaseDurationSeconds: opts.leaseDurationSeconds,
    renewTime: now,
  };
  if (current === undefined) {
    await api.createNamespacedLease({
      namespace: opts.namespace,
      body: { metadata: { name, namespace: opts.namespace }, spec: { ...spec, acquireTime: now } },
    });
    return;
  }
  await api.replaceNamespacedLease({
    name,
    namespace: opts.namespace,
    body: { ...current, spec: { ...current.spec, ...spec } },
  });
}

/** HTTP status of a client-node API error, if any. */
export function statusOf(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === "number") return e.code;
  return typeof e.statusCode === "number" ? e.statusCode : undefined;
}

/** A short description of an API error (client-node errors carry whole response bodies). */
export function summarize(err: unknown): { message: string; status?: number } {
  const message = err instanceof Error ? err.message.slice(0, 300) : String(err).slice(0, 300);
  const status = statusOf(err);
  return status === undefined ? { message } : { message, status };
}
