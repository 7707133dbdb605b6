/**
 * One namespaced informer per namespace of a given list, for a resource an app may read only in the namespaces an
 * administrator granted it (the agent's credentials Secrets, ADR 0020), and no informer at all for an empty list.
 *
 * A namespace whose list the API server refuses (403: its RoleBinding was deleted, or the app was told of a
 * namespace it was never granted) counts as settled, so that one tenant's namespace can never hold back the app's
 * start or readiness for everybody else; `lookup` says it is not loaded, with the refusal, until a list succeeds.
 * Any other list error keeps the namespace unsettled, exactly like any informer (fail static: the app waits).
 */
import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { type Informer, type InformerOptions, type ListPage, startInformer } from "./informer.js";
import { describeApiError, httpStatusOf } from "./internal/api-errors.js";
import { listByPath } from "./internal/list-by-path.js";

/** What the caches say about `namespace/name`. */
export type NamespacedLookup<T> =
  /** The namespace's cache has loaded: the object, undefined when absent. */
  | { state: "cached"; object: Readonly<T> | undefined }
  /** The namespace is not one of the list: nothing is known about it. */
  | { state: "notWatched" }
  /** The namespace's first list has not loaded; `refusal` describes the API server's 403 while it refuses. */
  | { state: "notLoaded"; refusal: string | undefined };

/** The caches of the namespaces (see the file comment). */
export interface NamespacedInformers<T> {
  /** Looks `namespace/name` up in the cache of its namespace (never calls the API server). */
  lookup(namespace: string, name: string): NamespacedLookup<T>;
  /** True once every namespace has loaded its first list or been refused. */
  hasSettled(): boolean;
  /** Resolves when `hasSettled()` becomes true; rejects if an informer stops before it synced. */
  settled(): Promise<void>;
}

/** Options of `startNamespacedInformers`: those of `startInformer`, with the namespaces and the resource. */
export interface NamespacedInformerOptions<T extends KubernetesObject>
  extends Omit<InformerOptions<T>, "name" | "path" | "list"> {
  namespaces: readonly string[];
  /** The API group's path, e.g. `/api/v1` or `/apis/discovery.k8s.io/v1`. */
  apiPath: string;
  /** The resource's plural, e.g. "secrets": watched at `<apiPath>/namespaces/<namespace>/<resource>`, and naming
   * each informer in logs and metrics as `<resource>/<namespace>`. */
  resource: string;
  /** Lists one namespace; default a GET of the watch's path with its selectors (see `InformerOptions.list`). */
  list?(namespace: string, page: ListPage): Promise<KubernetesListObject<T>>;
}

/** One namespace: its informer, the API server's refusal (set while its lists get 403), its settling. */
interface NamespaceCache<T> {
  informer: Informer<T>;
  refusal: { message?: string };
  settled: Promise<void>;
}

/** Starts one informer per namespace of `opts.namespaces`; they run until `opts.signal` aborts. */
export function startNamespacedInformers<T extends KubernetesObject>(
  opts: NamespacedInformerOptions<T>,
): NamespacedInformers<T> {
  const { namespaces, apiPath, resource, list, ...common } = opts;
  const caches = new Map<string, NamespaceCache<T>>();
  for (const namespace of namespaces) {
    let markRefused: () => void = () => {};
    const refusedOnce = new Promise<void>((resolve) => {
      markRefused = resolve;
    });
    const refusal: NamespaceCache<T>["refusal"] = {};
    const path = `${apiPath}/namespaces/${namespace}/${resource}`;
    const listOne = list
      ? (page: ListPage) => list(namespace, page)
      : listByPath<T>({ ...common, path }, common.signal);
    const informer = startInformer<T>({
      ...common,
      name: `${resource}/${namespace}`,
      path,
      list: async (page) => {
        try {
          const listed = await listOne(page);
          delete refusal.message;
          return listed;
        } catch (err) {
          if (httpStatusOf(err) === 403) {
            refusal.message = describeApiError(err);
            markRefused();
          }
          throw err;
        }
      },
    });
    caches.set(namespace, { informer, refusal, settled: Promise.race([informer.synced(), refusedOnce]) });
  }

  return {
    lookup(namespace, objectName) {
      const cache = caches.get(namespace);
      if (cache === undefined) return { state: "notWatched" };
      if (!cache.informer.hasSynced()) return { state: "notLoaded", refusal: cache.refusal.message };
      return { state: "cached", object: cache.informer.get(objectName, namespace) };
    },
    hasSettled: () =>
      [...caches.values()].every((c) => c.informer.hasSynced() || c.refusal.message !== undefined),
    settled: async () => {
      await Promise.all([...caches.values()].map((c) => c.settled));
    },
  };
}
