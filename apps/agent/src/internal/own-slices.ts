/**
 * This node's own EndpointSlices as the agent reads and writes them:
 * - read: the informer cache overlaid with this agent's writes the informer has not delivered yet (a reconcile
 *   right after a write plans against the new slice instead of spending a 409 and a re-list to find out);
 * - write: `writeSlices` of @swh/slice-writer, every write counted in `swh_slice_writes_total` (a failed apply
 *   too, before its error goes to the work queue);
 * - pace: the writes of each SWH are paced (`WritePacer`), and the informer's echo of our own write is recognised
 *   so that it costs no reconcile.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";
import { type Informer, type Logger, WritePacer, WrittenObjects } from "@swh/kube";
import { type AgentMetrics, recordSliceWrites } from "@swh/metrics";
import {
  type ApplyResult,
  isOwnedSlice,
  type SliceApi,
  SliceWriteError,
  type WriteRequest,
  writeSlices,
} from "@swh/slice-writer";

/** Where the node's slices are read and written. */
interface OwnSlicesDeps {
  informer: Informer<V1EndpointSlice>;
  api: SliceApi;
  nodeName: string;
  metrics: Pick<AgentMetrics, "sliceWrites">;
}

/** The node's slices, read-your-writes (see the file comment). */
export class OwnSlices {
  readonly #deps: OwnSlicesDeps;
  readonly #written = new WrittenObjects<V1EndpointSlice>();
  readonly #pacer = new WritePacer();

  constructor(deps: OwnSlicesDeps) {
    this.#deps = deps;
  }

  /** This node's slices of the SWH `namespace/name`, with our writes the informer has not delivered yet. */
  of(namespace: string, name: string): V1EndpointSlice[] {
    const matches = (slice: V1EndpointSlice) =>
      slice.metadata?.namespace === namespace &&
      isOwnedSlice(slice, { nodeName: this.#deps.nodeName, swhName: name });
    const cached = this.#deps.informer.list().filter((s) => matches(s as V1EndpointSlice));
    return this.#written.view(cached, namespace, matches);
  }

  /** Writes `request` (plan, apply, count) and remembers what the API server returned. */
  async write(request: WriteRequest, logger: Logger): Promise<void> {
    let result: ApplyResult | undefined;
    try {
      result = await writeSlices(request, { api: this.#deps.api, nodeName: this.#deps.nodeName });
    } catch (err) {
      if (err instanceof SliceWriteError) recordSliceWrites(this.#deps.metrics, err.result.writes);
      throw err;
    }
    if (result === undefined) return;
    recordSliceWrites(this.#deps.metrics, result.writes);
    logger.debug("slices written", {
      swh: objectKey(request.swh),
      attempts: result.attempts,
      written: result.written.map((s) => s.metadata?.name),
      deleted: result.deleted,
    });
    for (const slice of result.written) this.#written.recordWrite(slice);
    for (const name of result.deleted) this.#written.recordDelete({ namespace: request.swh.namespace, name });
    this.#pacer.recordWrite(objectKey(request.swh), Date.now());
  }

  /** For each informer event: true when it is only the echo of this agent's own write (nothing to reconcile). */
  observe(slice: Readonly<V1EndpointSlice>, deleted: boolean): boolean {
    return this.#written.observe(slice, deleted);
  }

  /** How long a change of the SWH `key` noticed now waits at least before its write (0 while not paced). */
  delayMs(key: string): number {
    return this.#pacer.delayMs(key, Date.now());
  }
}
