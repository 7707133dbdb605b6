/**
 * An index over the EndpointSlice informer's cache: slices by owning SWH (`namespace/service-name`) and by node,
 * so a reconcile looks up its few slices instead of scanning every slice of the cluster.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { LABEL_NODE, LABEL_SERVICE_NAME } from "@swh/crd-types";

/** Slices indexed by SWH key and by node name; fed by informer notifications. */
export class SliceIndex {
  readonly #byKey = new Map<string, Readonly<V1EndpointSlice>>();
  readonly #bySwh = new Map<string, Set<string>>();
  readonly #byNode = new Map<string, Set<string>>();

  /** Records `slice` (added or updated), replacing an earlier version of it. */
  upsert(slice: Readonly<V1EndpointSlice>): void {
    const key = sliceKey(slice);
    const old = this.#byKey.get(key);
    if (old !== undefined) this.remove(old);
    this.#byKey.set(key, slice);
    add(this.#bySwh, swhKeyOf(slice), key);
    add(this.#byNode, nodeOf(slice), key);
  }

  /** Forgets `slice`. */
  remove(slice: Readonly<V1EndpointSlice>): void {
    const key = sliceKey(slice);
    const stored = this.#byKey.get(key) ?? slice;
    this.#byKey.delete(key);
    drop(this.#bySwh, swhKeyOf(stored), key);
    drop(this.#byNode, nodeOf(stored), key);
  }

  /** The slices labelled for the SWH `namespace/name`. */
  forSwh(swhKey: string): Readonly<V1EndpointSlice>[] {
    return this.#lookup(this.#bySwh.get(swhKey));
  }

  /** The slices labelled with `node`. */
  forNode(node: string): Readonly<V1EndpointSlice>[] {
    return this.#lookup(this.#byNode.get(node));
  }

  /** Every node that has slices. */
  nodes(): string[] {
    return [...this.#byNode.keys()].filter((n) => n !== "");
  }

  #lookup(keys: Set<string> | undefined): Readonly<V1EndpointSlice>[] {
    const out: Readonly<V1EndpointSlice>[] = [];
    for (const key of keys ?? []) {
      const slice = this.#byKey.get(key);
      if (slice !== undefined) out.push(slice);
    }
    return out;
  }
}

/** `namespace/<kubernetes.io/service-name>` of a slice: the key of the SWH it belongs to. */
export function swhKeyOf(slice: Readonly<V1EndpointSlice>): string {
  return `${slice.metadata?.namespace ?? ""}/${slice.metadata?.labels?.[LABEL_SERVICE_NAME] ?? ""}`;
}

/** The node a slice belongs to, from our node label ("" when missing). */
export function nodeOf(slice: Readonly<V1EndpointSlice>): string {
  return slice.metadata?.labels?.[LABEL_NODE] ?? "";
}

function sliceKey(slice: Readonly<V1EndpointSlice>): string {
  return `${slice.metadata?.namespace ?? ""}/${slice.metadata?.name ?? ""}`;
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
