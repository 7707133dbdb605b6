/**
 * Remembers, per SWH, whether this agent publishes its endpoints or withholds them because its Service is not
 * one it controls (ADR 0014), so that the decision is logged once when it changes instead of on every reconcile,
 * and the `swh_endpoints_withheld{reason}` gauge counts the SWHs withheld right now.
 */
import { PUBLICATION_BLOCKS, type PublicationBlock } from "@swh/crd-types";
import type { Publication } from "@swh/crd-types/internal";
import type { Logger } from "@swh/kube";
import type { Gauge } from "prom-client";

// Withheld for these until the controller creates or adopts the Service: normal for a new SWH, not a conflict.
const TRANSIENT: ReadonlySet<PublicationBlock> = new Set(["ServiceMissing", "ServiceNotAdopted"]);

/** The publication decision per SWH key, logged and counted on change. */
export class PublicationLog {
  readonly #decisions = new Map<string, PublicationBlock | "publish">();
  readonly #logger: Logger;
  readonly #withheld: Gauge<"reason">;

  constructor(logger: Logger, withheld: Gauge<"reason">) {
    this.#logger = logger;
    this.#withheld = withheld;
    for (const reason of PUBLICATION_BLOCKS) withheld.set({ reason }, 0);
  }

  /** Records the decision for `namespace/name`; `undefined` forgets an SWH that is gone. */
  record(ref: { namespace: string; name: string }, publication: Publication | undefined): void {
    const swh = `${ref.namespace}/${ref.name}`;
    const before = this.#decisions.get(swh);
    const now = publication === undefined ? undefined : publication.publish ? "publish" : publication.reason;
    if (now === before) return;
    if (now === undefined) this.#decisions.delete(swh);
    else this.#decisions.set(swh, now);
    if (before !== undefined && before !== "publish") this.#withheld.dec({ reason: before });
    if (now !== undefined && now !== "publish") this.#withheld.inc({ reason: now });

    if (publication === undefined) return;
    if (publication.publish) {
      if (before !== undefined)
        this.#logger.info("publishing endpoints: the Service is controlled by the SWH", { swh });
      return;
    }
    const fields = { swh, reason: publication.reason, detail: publication.message };
    const message =
      "withholding endpoints: the Service is not controlled by the SWH; this node's slices are removed";
    if (!TRANSIENT.has(publication.reason)) this.#logger.warn(message, fields);
    else if (before === "publish") this.#logger.info(message, fields);
    else this.#logger.debug(message, fields);
  }
}
