/**
 * The SWHs this agent knows: read from the Services the controller manages, never from SWHs (ADR 0032). The
 * controller writes each SWH's spec onto its Service (`ANNOTATION_SWH_SPEC`), and agents watch those Services by
 * label (ADR 0025). An SWH's status — rewritten by the controller on every endpoint change anywhere — therefore
 * never reaches an agent; only a change of the spec (or of the Service) does.
 *
 * "Not in the cache" means "absent, or present without the label". Without the label is normal for a Service an
 * older controller created (until the new controller labels it) or whose label someone removed (until the
 * controller puts it back): treating it as absent would withdraw healthy endpoints. So:
 * - a Service that leaves the watch while this node has slices of it is kept, as last seen, until the API server
 *   has been asked about it (`service`): its probes keep running in the meantime;
 * - when the cache lacks a Service and this node has slices the withholding would delete, the agent asks the API
 *   server once for that one Service and decides on the answer; otherwise (nothing to lose) it waits for the label.
 * The label is never trusted: the reconcile still checks the controller reference of whatever this returns
 * (ADR 0014). A failing request throws, so the reconcile is retried and the slices stay as they are (fail static).
 */
import type { CoreV1Api, V1Service } from "@kubernetes/client-node";

import { objectKey, splitObjectKey } from "@swh/crd-types";
import { type PublishedSwh, readPublishedSwh, type ServiceSwh } from "@swh/crd-types/internal";

/** Where the view looks. */
export interface PublishedSwhSources {
  /** The Services of the informer of labelled Services. */
  cached(): readonly Readonly<V1Service>[];
  /** One of them (undefined: not there). */
  cachedOne(namespace: string, name: string): Readonly<V1Service> | undefined;
  /** True when this node has slices of the SWH that withholding would delete. */
  hasSlices(namespace: string, name: string): boolean;
  /** Reads the Service from the API server (undefined: it does not exist). */
  fetch(namespace: string, name: string): Promise<Readonly<V1Service> | undefined>;
  /** Called when a Service outside the watch was added or dropped: the set of SWHs changed. */
  changed(): void;
}

/** The agent's SWHs, from the Services (see the file comment). */
export class PublishedSwhs {
  readonly #sources: PublishedSwhSources;
  /** Services outside the watch this node still publishes for, by `namespace/name`. */
  readonly #detached = new Map<string, Readonly<V1Service>>();
  readonly #reads = new WeakMap<object, ServiceSwh>();

  constructor(sources: PublishedSwhSources) {
    this.#sources = sources;
  }

  /** What `service` publishes, read once per Service object (informer objects never change). */
  read(service: Readonly<V1Service>): ServiceSwh {
    let read = this.#reads.get(service);
    if (read === undefined) {
      read = readPublishedSwh(service);
      this.#reads.set(service, read);
    }
    return read;
  }

  /** Every Service this agent reads SWHs from: the watched ones and those kept after leaving the watch. */
  services(): Readonly<V1Service>[] {
    const services = [...this.#sources.cached()];
    for (const [key, service] of this.#detached) {
      const { namespace, name } = splitObjectKey(key);
      if (this.#sources.cachedOne(namespace, name) === undefined) services.push(service);
    }
    return services;
  }

  /** Every SWH with a usable published spec. */
  list(): PublishedSwh[] {
    return this.services().flatMap((service) => {
      const read = this.read(service);
      return read.state === "swh" ? [read.swh] : [];
    });
  }

  /**
   * Follows the watch: a Service that left it (a delete event: deleted, or its label removed) while this node has
   * slices of it is kept as last seen until `service` has asked the API server; one that is back is the cache's.
   */
  observe(event: "add" | "update" | "delete", service: Readonly<V1Service>): void {
    const namespace = service.metadata?.namespace ?? "";
    const name = service.metadata?.name ?? "";
    const key = objectKey({ namespace, name });
    if (event !== "delete") this.#detached.delete(key);
    else if (this.#sources.hasSlices(namespace, name)) this.#detached.set(key, service);
  }

  /** The Service `namespace/name` (undefined: it does not exist), reading the API server only as the header says. */
  async service(namespace: string, name: string): Promise<Readonly<V1Service> | undefined> {
    const cached = this.#sources.cachedOne(namespace, name);
    const key = objectKey({ namespace, name });
    if (cached !== undefined) {
      this.#detached.delete(key);
      return cached;
    }
    if (!this.#sources.hasSlices(namespace, name)) {
      if (this.#detached.delete(key)) this.#sources.changed();
      return undefined;
    }
    const fetched = await this.#sources.fetch(namespace, name);
    const before = this.#detached.get(key)?.metadata?.resourceVersion;
    if (fetched === undefined) this.#detached.delete(key);
    else this.#detached.set(key, fetched);
    if (before !== fetched?.metadata?.resourceVersion) this.#sources.changed();
    return fetched;
  }
}

/**
 * Reads one Service with a list narrowed to its name: the agent's role lists and watches Services but never GETs
 * one (ADR 0021: it holds only the verbs it uses), and a by-name list costs the API server the same.
 */
export async function fetchService(
  core: CoreV1Api,
  namespace: string,
  name: string,
): Promise<Readonly<V1Service> | undefined> {
  const list = await core.listNamespacedService({ namespace, fieldSelector: `metadata.name=${name}` });
  return list.items[0];
}
