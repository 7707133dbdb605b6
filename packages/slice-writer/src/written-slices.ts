/**
 * The agent's view of its own slices: the informer cache, overlaid with what this agent wrote and the
 * informer has not delivered yet. Without the overlay, a reconcile right after a write (coalesced probe changes
 * arrive in bursts) would plan against the old slice and spend a 409 and a re-list to find out.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";

/** Own slices = informer cache + not-yet-seen writes; see the file comment. */
export class WrittenSlices {
  readonly #written = new Map<string, V1EndpointSlice>();
  readonly #deleted = new Set<string>();

  /** Remembers the objects the API server returned for our writes and the names we deleted. */
  recordWrites(namespace: string, written: readonly V1EndpointSlice[], deleted: readonly string[]): void {
    for (const slice of written) {
      const key = `${namespace}/${slice.metadata?.name ?? ""}`;
      this.#written.set(key, slice);
      this.#deleted.delete(key);
    }
    for (const name of deleted) {
      this.#written.delete(`${namespace}/${name}`);
      this.#deleted.add(`${namespace}/${name}`);
    }
  }

  /**
   * Called for each informer event: once the informer shows our write (or anything newer), the overlay yields.
   * Returns true when the event is only the echo of this agent's own write or delete (or an older version): the
   * view already held it, so nothing needs reconciling. Every write comes back this way; without the check each
   * one cost a full reconcile of its SWH.
   */
  observe(slice: Readonly<V1EndpointSlice>, deleted: boolean): boolean {
    const key = `${slice.metadata?.namespace ?? ""}/${slice.metadata?.name ?? ""}`;
    if (deleted) {
      const ours = this.#deleted.delete(key);
      this.#written.delete(key);
      return ours;
    }
    const mine = this.#written.get(key);
    if (mine === undefined) return false;
    const seen = slice.metadata?.resourceVersion;
    const written = mine.metadata?.resourceVersion;
    if (isOlder(seen, written)) return true;
    this.#written.delete(key);
    return seen !== undefined && seen === written;
  }

  /** Merges the informer's slices (already filtered by the caller) with the overlay for `namespace` and `matches`. */
  view(
    cached: readonly Readonly<V1EndpointSlice>[],
    namespace: string,
    matches: (slice: V1EndpointSlice) => boolean,
  ): V1EndpointSlice[] {
    const out = new Map<string, V1EndpointSlice>();
    for (const slice of cached)
      out.set(`${namespace}/${slice.metadata?.name ?? ""}`, slice as V1EndpointSlice);
    for (const [key, slice] of this.#written) {
      if (key.startsWith(`${namespace}/`) && matches(slice)) out.set(key, slice);
    }
    for (const key of this.#deleted) out.delete(key);
    return [...out.values()];
  }
}

/**
 * True only when `seen` is certainly older than `written`. resourceVersions are opaque by contract; the API
 * server backed by etcd issues increasing integers, and this is only an optimisation: when in doubt the informer
 * wins (a wrong guess costs one 409 and a re-plan, never a wrong write).
 */
function isOlder(seen: string | undefined, written: string | undefined): boolean {
  if (seen === undefined || written === undefined || !/^\d+$/.test(seen) || !/^\d+$/.test(written))
    return false;
  return BigInt(seen) < BigInt(written);
}
