/**
 * The one key of a namespaced or cluster-scoped object used by work queues, caches and indexes: `namespace/name`,
 * or `name` for an object without a namespace (client-go's `MetaNamespaceKeyFunc` convention). `splitObjectKey`
 * reads it back.
 */

/** `namespace/name` of `ref` (`name` alone when it has no namespace). `ref` may be an object's metadata. */
export function objectKey(ref: {
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
}): string {
  const name = ref.name ?? "";
  return ref.namespace ? `${ref.namespace}/${name}` : name;
}

/** The namespace (`""` for a cluster-scoped key) and name of a key `objectKey` made. */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: "", name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
