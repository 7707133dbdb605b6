/**
 * Read-your-writes over an informer: the objects this process wrote (or deleted) that the informer has not
 * delivered yet, laid over the informer's cache. Right after a write the cache still holds the object as it was
 * before; a decision made from it would redo the write, or be refused with a 409 that costs a requeue. The overlay
 * yields to the cache as soon as the informer shows our write or anything newer.
 *
 * "Newer" is decided by resourceVersion. resourceVersions are opaque by contract; the API server backed by etcd
 * issues increasing integers (etcd's one revision counter), and this is an optimisation only, so
 * the rule is: our write stands in for the cached copy only while that copy is *certainly* older — both versions
 * are integers and the cached one is smaller. In every other case the cache wins: a wrong guess then costs one 409
 * and a retry, never a decision from a view older than the cache.
 *
 * A written object also yields once the informer has shown *any* object at its version or newer: a watch delivers
 * in version order, so by then the cache holds our object as of that version, or it is gone. Without this an
 * object created and deleted while the informer re-listed (a re-list reports no event for an object it never
 * had) would stand in the view for ever.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";

/**
 * The objects this process wrote or deleted and its informer has not delivered yet; see the file comment. One
 * tracker takes the events of one informer (`observe`), in the order the informer delivers them.
 */
export class WrittenObjects<T extends KubernetesObject> {
  readonly #written = new Map<string, T>();
  readonly #deleted = new Set<string>();
  /** The newest resourceVersion the informer has shown, of any object (undefined: none was an integer). */
  #progress: bigint | undefined;

  /** Remembers `obj`, the object the API server returned for our write (its resourceVersion included). */
  recordWrite(obj: T): void {
    const key = objectKey(obj.metadata ?? {});
    this.#written.set(key, obj);
    this.#deleted.delete(key);
  }

  /**
   * Remembers that we deleted the object `ref` names: it is hidden until the informer delivers a delete of it, we
   * write it again, or `forget`. A delete carries no version to compare later events with, so names we delete
   * are taken to be ours: should somebody else create the object again while the informer re-lists (a re-list
   * reports no delete), it would stay hidden until one of those happens.
   */
  recordDelete(ref: { namespace?: string; name?: string }): void {
    const key = objectKey(ref);
    this.#written.delete(key);
    this.#deleted.add(key);
  }

  /**
   * Takes one informer event (`deleted`: a delete notification). Once the informer shows our write or anything
   * newer, the overlay for that object yields to the cache. Returns true when the event is only the echo of our
   * own write or delete, or a version older than our write: the overlay already showed it, so there is nothing
   * new to act on (every write comes back this way). A delete always ends the overlay — the cache says the object
   * is gone, and the event carries the last cached version, which says nothing about when the delete happened —
   * and is an echo only when we deleted the object ourselves.
   */
  observe(obj: Readonly<T>, deleted: boolean): boolean {
    const key = objectKey(obj.metadata ?? {});
    const seen = obj.metadata?.resourceVersion;
    // Judged against what the informer had shown before this event: the echo itself is progress too.
    const mine = this.#pending(key);
    const version = revision(seen);
    if (version !== undefined && (this.#progress === undefined || version > this.#progress))
      this.#progress = version;
    if (deleted) {
      this.#written.delete(key);
      return this.#deleted.delete(key);
    }
    const written = mine?.metadata?.resourceVersion;
    if (mine !== undefined && isCertainlyOlder(seen, written)) return true;
    this.#written.delete(key);
    return mine !== undefined && seen !== undefined && seen === written;
  }

  /**
   * The object `key` (`objectKey`) as this process last knows it: our written object while the `cached` copy is
   * certainly older than it (or absent: a create the informer has not delivered), undefined while our delete is
   * not delivered, else `cached`.
   */
  current(key: string, cached: Readonly<T> | undefined): Readonly<T> | undefined {
    if (this.#deleted.has(key)) return undefined;
    const mine = this.#pending(key);
    if (mine === undefined) return cached;
    if (cached === undefined) return mine;
    return isCertainlyOlder(cached.metadata?.resourceVersion, mine.metadata?.resourceVersion) ? mine : cached;
  }

  /**
   * The objects of `namespace`: `cached` (that namespace's objects, filtered by the caller; keyed under
   * `namespace`), with our written objects of that namespace that satisfy `matches` laid over them (by the rule of
   * `current`), minus those we deleted. Order: the cached order, then written objects the cache does not have.
   */
  view(cached: readonly Readonly<T>[], namespace: string, matches: (obj: Readonly<T>) => boolean): T[] {
    const out = new Map<string, T>();
    for (const obj of cached) out.set(objectKey({ namespace, name: obj.metadata?.name }), obj as T);
    for (const key of this.#written.keys()) {
      const mine = this.#pending(key);
      if (mine === undefined || (mine.metadata?.namespace ?? "") !== namespace || !matches(mine)) continue;
      const cachedObj = out.get(key);
      if (
        cachedObj === undefined ||
        isCertainlyOlder(cachedObj.metadata?.resourceVersion, mine.metadata?.resourceVersion)
      )
        out.set(key, mine);
    }
    for (const key of this.#deleted) out.delete(key);
    return [...out.values()];
  }

  /** Drops what we wrote or deleted of `key` (e.g. after a 409: our version is not the stored one). */
  forget(key: string): void {
    this.#written.delete(key);
    this.#deleted.delete(key);
  }

  /** Drops everything (e.g. when a leadership term ends). */
  clear(): void {
    this.#written.clear();
    this.#deleted.clear();
    this.#progress = undefined;
  }

  /** Our written object `key`, unless the informer has shown some object at its version or newer. */
  #pending(key: string): T | undefined {
    const mine = this.#written.get(key);
    const version = revision(mine?.metadata?.resourceVersion);
    if (version !== undefined && this.#progress !== undefined && version <= this.#progress) return undefined;
    return mine;
  }
}

/** True only when both resourceVersions are integers and `seen` is the smaller (see the file comment). */
function isCertainlyOlder(seen: string | undefined, written: string | undefined): boolean {
  const a = revision(seen);
  const b = revision(written);
  return a !== undefined && b !== undefined && a < b;
}

/** `resourceVersion` as an integer, or undefined when it is not one (it is opaque by contract). */
function revision(resourceVersion: string | undefined): bigint | undefined {
  return resourceVersion !== undefined && /^\d+$/.test(resourceVersion) ? BigInt(resourceVersion) : undefined;
}
