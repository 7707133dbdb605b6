/**
 * The SWHs this agent knows: read from the Services the controller manages, never from SWHs (ADR 0032). The
 * controller writes each SWH's spec onto its Service (`ANNOTATION_SWH_SPEC`), and agents watch those Services by
 * label (ADR 0025). An SWH's status — rewritten by the controller on every endpoint change anywhere — therefore
 * never reaches an agent; only a change of the spec (or of the Service) does.
 *
 * "Not in the cache" means "absent, or present without the label". Without the label is normal for a Service an
 * older controller created (until the new controller labels it) or whose label someone removed (until the
 * controller puts it back): treating it as absent would withdraw healthy endpoints. So a Service that leaves the
 * watch while this node has slices of it is kept (`KeptObjects` of @swh/kube), and its probes keep running, until
 * the API server has been asked about it once. The label is never trusted: the reconcile still checks the
 * controller reference of whatever this returns (ADR 0014).
 */
import type { CoreV1Api, V1Service } from "@kubernetes/client-node";
import { type PublishedSwh, readPublishedSwh, type ServiceSwh } from "@swh/crd-types/internal";
import { type Informer, KeptObjects } from "@swh/kube";

/** Where the SWHs are read from. */
interface PublishedSwhSources {
  /** The informer of labelled Services. */
  services: Pick<Informer<V1Service>, "list" | "get">;
  /** True when this node has slices of the SWH that withholding would delete. */
  hasSlices(namespace: string, name: string): boolean;
  /** Reads the Service from the API server (undefined: it does not exist). */
  fetch(namespace: string, name: string): Promise<Readonly<V1Service> | undefined>;
  /** Called when a Service outside the watch was kept, changed or dropped: the set of SWHs changed. */
  changed(): void;
}

/** The agent's SWHs, from the Services (see the file comment). */
export class PublishedSwhs {
  readonly #services: PublishedSwhSources["services"];
  readonly #kept: KeptObjects<Readonly<V1Service>>;
  readonly #reads = new WeakMap<object, ServiceSwh>();

  constructor(sources: PublishedSwhSources) {
    this.#services = sources.services;
    this.#kept = new KeptObjects<Readonly<V1Service>>({
      cachedOne: (namespace, name) => sources.services.get(name, namespace),
      keep: sources.hasSlices,
      fetch: sources.fetch,
      changed: sources.changed,
    });
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
    return this.#kept.withKept(this.#services.list());
  }

  /** Every SWH with a usable published spec. */
  list(): PublishedSwh[] {
    return this.services().flatMap((service) => {
      const read = this.read(service);
      return read.state === "swh" ? [read.swh] : [];
    });
  }

  /** Follows the watch of labelled Services (`KeptObjects.observe`). */
  observe(event: "add" | "update" | "delete", service: Readonly<V1Service>): void {
    this.#kept.observe(event, service);
  }

  /** The Service `namespace/name` (undefined: it does not exist), asking the API server only for a kept one. */
  service(namespace: string, name: string): Promise<Readonly<V1Service> | undefined> {
    return this.#kept.get(namespace, name);
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
): Promise<V1Service | undefined> {
  const list = await core.listNamespacedService({ namespace, fieldSelector: `metadata.name=${name}` });
  return list.items[0];
}
