/**
 * Writes pods' readiness gate conditions (`readinessGateUpdates` of @swh/aggregation decides which) with one
 * strategic merge patch of `pods/status` each (`readinessGatePatch`: conditions merge by type, so the kubelet's
 * own conditions are untouched, and `metadata.uid` in the patch is a precondition). The agent's admission policy
 * lets it patch only its own node's pods, and only conditions of `READINESS_GATE_PREFIX` (ADR 0038).
 *
 * Read-your-writes: the pod the API server returns is laid over the informer's copy (`WrittenObjects`) until the
 * informer delivers it, so a reconcile right after a write sees the new condition and does not write it again. A
 * pod that is gone (404) or was replaced (409, the uid precondition) is skipped; any other error is thrown once
 * every update was tried, so the reconcile is retried with the queue's backoff.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type ReadinessGateUpdate, readinessGatePatch } from "@swh/aggregation";
import { objectKey } from "@swh/crd-types";
import { httpStatusOf, type KubeJsonClient, type Logger, WrittenObjects } from "@swh/kube";
import type { AgentMetrics } from "@swh/metrics";

/** The pods' gate conditions as this agent writes and reads them (see the file comment). */
export class ReadinessGates {
  readonly #client: KubeJsonClient;
  readonly #metrics: Pick<AgentMetrics, "readinessGateWrites">;
  readonly #written = new WrittenObjects<V1Pod>();

  constructor(client: KubeJsonClient, metrics: Pick<AgentMetrics, "readinessGateWrites">) {
    this.#client = client;
    this.#metrics = metrics;
  }

  /** Writes every update; throws the first unexpected error after trying them all. */
  async write(updates: readonly ReadinessGateUpdate[], logger: Logger): Promise<void> {
    let failure: unknown;
    for (const update of updates) {
      try {
        this.#written.recordWrite(await this.#patch(update));
        this.#metrics.readinessGateWrites.inc({ result: "success" });
        logger.info("readiness gate written", {
          pod: objectKey(update.pod),
          type: update.condition.type,
          status: update.condition.status,
          reason: update.condition.reason,
        });
      } catch (err) {
        const status = httpStatusOf(err);
        const gone = status === 404 || status === 409;
        this.#metrics.readinessGateWrites.inc({ result: gone ? "gone" : "error" });
        if (!gone) failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** For each pod informer event: true when it is only the echo of this agent's own write. */
  observe(pod: Readonly<V1Pod>, deleted: boolean): boolean {
    return this.#written.observe(pod, deleted);
  }

  /** `pod` as this agent last knows it: with its own gate write laid over while the informer lags. */
  current(pod: Readonly<V1Pod>): Readonly<V1Pod> {
    return this.#written.current(objectKey(pod.metadata ?? {}), pod) ?? pod;
  }

  #patch(update: ReadinessGateUpdate): Promise<V1Pod> {
    const { pod } = update;
    return this.#client.request<V1Pod>({
      method: "PATCH",
      path: `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}/status`,
      contentType: "application/strategic-merge-patch+json",
      body: readinessGatePatch(update, new Date()),
    });
  }
}
