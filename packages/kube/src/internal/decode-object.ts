/**
 * Turns a raw watch-event object into the same shape the typed list calls return. client-node's `Watch` hands
 * out `JSON.parse` output (timestamps as strings) while its generated API methods return model objects
 * (timestamps as `Date`); an informer must not mix the two in one cache. client-node does not export its
 * serializer from the package root, so it is imported by path (pinned version, see docs/adr).
 */
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import { getSerializationType } from "@kubernetes/client-node/dist/util.js";

/** Returns `raw` deserialised into client-node's model for its apiVersion/kind; custom resources stay as parsed. */
export function decodeWatchObject<T>(raw: { apiVersion?: string; kind?: string }): T {
  const type = getSerializationType(raw.apiVersion, raw.kind);
  if (type === "KubernetesObject") return raw as T;
  return ObjectSerializer.deserialize(raw, type, "") as T;
}

/**
 * The items of a raw list answer, deserialised as the typed list calls return them. List items carry no
 * apiVersion and kind of their own: they are the list's, without its `List` suffix.
 */
export function decodeListItems<T>(raw: { apiVersion?: string; kind?: string; items: unknown[] }): T[] {
  const type = getSerializationType(raw.apiVersion, raw.kind?.replace(/List$/, ""));
  if (type === "KubernetesObject") return raw.items as T[];
  return raw.items.map((item) => ObjectSerializer.deserialize(item, type, "") as T);
}
