/**
 * Objects a label-narrowed watch dropped that a program must not forget yet. A watch narrowed by a label selector
 * reports "deleted" both for an object that is gone and for one whose label was removed (or that an older version
 * never labelled): forgetting the second kind would act on an object that still exists. So an object that leaves
 * the watch while the program still has something of it (`keep`) is kept as last seen until `get` has asked the
 * API server; `get` asks only then, once, and decides on the answer. An object back in the watch is the cache's
 * again. A failing request throws, so the caller retries and nothing is decided on an error (fail static).
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";

/** Where the kept objects are looked up and confirmed. */
export interface KeptObjectSources<T extends KubernetesObject> {
  /** The object `namespace/name` in the watch's cache (undefined: not there). */
  cachedOne(namespace: string, name: string): T | undefined;
  /** True while the program has something of `namespace/name` it would lose if the object were gone. */
  keep(namespace: string, name: string): boolean;
  /** Reads the object from the API server (undefined: it does not exist); throws when it cannot tell. */
  fetch(namespace: string, name: string): Promise<T | undefined>;
  /** Called when an object outside the watch was kept anew, changed or dropped: the set of objects changed. */
  changed(): void;
}

/** The objects of a label-narrowed watch, with those it dropped kept (see the file comment). */
export class KeptObjects<T extends KubernetesObject> {
  readonly #sources: KeptObjectSources<T>;
  /** Objects outside the watch still kept, by `namespace/name`. */
  readonly #kept = new Map<string, T>();

  constructor(sources: KeptObjectSources<T>) {
    this.#sources = sources;
  }

  /** `cached` (the watch's objects) plus the kept objects the cache does not hold. */
  withKept(cached: readonly T[]): T[] {
    const all = [...cached];
    for (const object of this.#kept.values()) {
      const { namespace = "", name = "" } = object.metadata ?? {};
      if (this.#sources.cachedOne(namespace, name) === undefined) all.push(object);
    }
    return all;
  }

  /** Follows the watch: an object that left it while `keep` holds is kept as last seen; one that is back is not. */
  observe(event: "add" | "update" | "delete", object: T): void {
    const { namespace = "", name = "" } = object.metadata ?? {};
    const key = objectKey({ namespace, name });
    if (event !== "delete") this.#kept.delete(key);
    else if (this.#sources.keep(namespace, name)) this.#kept.set(key, object);
  }

  /** The object `namespace/name` (undefined: it does not exist), asking the API server only as the header says. */
  async get(namespace: string, name: string): Promise<T | undefined> {
    const key = objectKey({ namespace, name });
    const cached = this.#sources.cachedOne(namespace, name);
    if (cached !== undefined) {
      this.#kept.delete(key);
      return cached;
    }
    if (!this.#sources.keep(namespace, name)) {
      if (this.#kept.delete(key)) this.#sources.changed();
      return undefined;
    }
    const fetched = await this.#sources.fetch(namespace, name);
    const before = this.#kept.get(key)?.metadata?.resourceVersion;
    if (fetched === undefined) this.#kept.delete(key);
    else this.#kept.set(key, fetched);
    if (before !== fetched?.metadata?.resourceVersion) this.#sources.changed();
    return fetched;
  }
}
