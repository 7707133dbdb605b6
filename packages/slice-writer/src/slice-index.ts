/**
 * An index over the EndpointSlice informer's cache: our slices, each read once through the slice contract's
 * reader (`readSlice`), by owning SWH (`namespace/service-name`) and by the full node name the slice carries —
 * never by the node label, which is a hash for long node names (ADR 0013). A reconcile looks up its few slices
 * instead of scanning every slice of the cluster, and status reads the parsed view instead of parsing again.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { objectKey } from "@swh/crd-types";
import { readSlice, type SliceView } from "./read-slice.js";

/** A slice as the informer delivered it and as the contract's reader reads it. */
export interface IndexedSlice {
  readonly slice: Readonly<V1EndpointSlice>;
  readonly view: SliceView;
  /** `namespace/name` of the SWH the slice belongs to (`objectKey`). */
  readonly swhKey: string;
}

/** Slices indexed by SWH key and by node name; fed by informer notifications. */
export class SliceIndex {
  readonly #byKey = new Map<string, IndexedSlice>();
  readonly #bySwh = new Map<string, Set<string>>();
  readonly #byNode = new Map<string, Set<string>>();

  /**
   * Records `slice` (added or updated), replacing an earlier version of it, and returns how it reads; a slice the
   * reader rejects (not ours, malformed) is forgotten and undefined is returned.
   */
  upsert(slice: Readonly<V1EndpointSlice>): IndexedSlice | undefined {
    this.remove(slice);
    const view = readSlice(slice);
    if (view === undefined) return undefined;
    const key = sliceKey(slice);
    const entry: IndexedSlice = {
      slice,
      view,
      swhKey: objectKey({ namespace: view.namespace, name: view.swhName }),
    };
    this.#byKey.set(key, entry);
    add(this.#bySwh, entry.swhKey, key);
    add(this.#byNode, view.nodeName, key);
    return entry;
  }

  /** Forgets `slice`; returns the entry it had, if any. */
  remove(slice: Readonly<V1EndpointSlice>): IndexedSlice | undefined {
    const key = sliceKey(slice);
    const stored = this.#byKey.get(key);
    if (stored === undefined) return undefined;
    this.#byKey.delete(key);
    drop(this.#bySwh, stored.swhKey, key);
    drop(this.#byNode, stored.view.nodeName, key);
    return stored;
  }

  /** The slices of the SWH `namespace/name`. */
  forSwh(swhKey: string): IndexedSlice[] {
    return this.#lookup(this.#bySwh.get(swhKey));
  }

  /** The slices written by the agent of `node` (full name). */
  forNode(node: string): IndexedSlice[] {
    return this.#lookup(this.#byNode.get(node));
  }

  /** Every node that has slices. */
  nodes(): string[] {
    return [...this.#byNode.keys()];
  }

  #lookup(keys: Set<string> | undefined): IndexedSlice[] {
    const out: IndexedSlice[] = [];
    for (const key of keys ?? []) {
      const entry = this.#byKey.get(key);
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }
}

function sliceKey(slice: Readonly<V1EndpointSlice>): string {
  return objectKey(slice.metadata ?? {});
}

function add(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key) ?? new Set<string>();
  set.add(value);
  index.set(key, set);
}

function drop(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key);
  if (set === undefined) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}
