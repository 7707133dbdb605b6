/**
 * An informer's list, derived from its watch: a GET of the same path with the same selectors, so the two can never
 * disagree about what the informer caches. Through the JSON client (the KubeConfig's credentials and connection
 * pool, ADR 0012), the items deserialised as the typed list calls return them, and aborted with the informer.
 */
import type { KubeConfig, KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { createJsonClient } from "../json-client.js";
import { decodeListItems } from "./decode-object.js";

/** What is listed: the collection's path and its selectors. */
export interface ListedCollection {
  kubeConfig: KubeConfig;
  path: string;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

/** Which page of a list to fetch (the API's `limit`, `continue`, `resourceVersion`, `resourceVersionMatch`). */
export interface ListPage {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit: number;
  _continue?: string;
}

/** Lists `collection` one page at a time (see the file comment). */
export function listByPath<T extends KubernetesObject>(
  collection: ListedCollection,
  signal: AbortSignal,
): (page: ListPage) => Promise<KubernetesListObject<T>> {
  const client = createJsonClient(collection.kubeConfig);
  return async (page) => {
    const raw = await client.request<KubernetesListObject<T> & { kind?: string }>({
      method: "GET",
      path: collection.path,
      query: {
        labelSelector: collection.labelSelector,
        fieldSelector: collection.fieldSelector,
        limit: String(page.limit),
        continue: page._continue,
        resourceVersion: page.resourceVersion,
        resourceVersionMatch: page.resourceVersionMatch,
      },
      signal,
    });
    return { ...raw, items: decodeListItems<T>(raw) };
  };
}
