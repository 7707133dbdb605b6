/**
 * The agent's view of credentials Secrets (ADR 0020): one namespaced informer per namespace an administrator
 * enabled (`--credentials-namespaces`, the chart value `agent.credentialsNamespaces`), each narrowed server-side to
 * the credentials type. No informer at all when none is enabled: the agent's token has no Secret access then.
 *
 * A namespace whose list the API server refuses (403: its RoleBinding was deleted, or the flag lists a namespace
 * the chart did not bind) counts as settled, so that one tenant's namespace can never hold back the agent's start
 * or readiness for everybody else; its probes fail with `CredentialsNotPermitted` until a list succeeds. Any other
 * list error keeps the namespace unsettled, exactly like the other informers (fail static: the agent waits).
 */
import { CoreV1Api, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import { POSTGRES_CREDENTIALS_SECRET_TYPE } from "@swh/crd-types";
import {
  describeApiError,
  httpStatusOf,
  type Informer,
  type KubeMetrics,
  type Logger,
  startInformer,
} from "@swh/kube";

/** What the caches say about one Secret reference: the Secret (undefined = absent), or why it may not be read. */
export type CredentialsLookup =
  | { permitted: true; secret: Readonly<V1Secret> | undefined }
  | { permitted: false; message: string };

/** Read access to the credentials Secrets of the enabled namespaces. */
export interface CredentialsSecrets {
  /** Looks `namespace/name` up in the cache of its namespace (never calls the API server). */
  lookup(namespace: string, name: string): CredentialsLookup;
  /** True once every enabled namespace has loaded its first list or been refused (see the file header). */
  hasSettled(): boolean;
  /** Resolves when `hasSettled()` becomes true; rejects if an informer stops before it synced. */
  settled(): Promise<void>;
}

/** Names the chart value and the flag in messages, so that whoever reads the status knows what to change. */
const HOW_TO_ENABLE = "an administrator enables it with the chart value agent.credentialsNamespaces";

/** One enabled namespace: its cache, the API server's refusal (set while its lists get 403), its settling. */
interface NamespaceCache {
  informer: Informer<V1Secret>;
  refusal: { message?: string };
  settled: Promise<void>;
}

/** Starts one Secret informer per namespace of `namespaces`; they run until `signal` aborts. */
export function startCredentialsSecrets(opts: {
  kubeConfig: KubeConfig;
  namespaces: readonly string[];
  logger: Logger;
  metrics: KubeMetrics;
  signal: AbortSignal;
  resyncMs?: number;
}): CredentialsSecrets {
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const fieldSelector = `type=${POSTGRES_CREDENTIALS_SECRET_TYPE}`;
  const caches = new Map<string, NamespaceCache>();
  for (const namespace of opts.namespaces) {
    let markRefused: () => void = () => {};
    const refusedOnce = new Promise<void>((resolve) => {
      markRefused = resolve;
    });
    const refusal: NamespaceCache["refusal"] = {};
    const informer = startInformer<V1Secret>({
      kubeConfig: opts.kubeConfig,
      name: `secrets/${namespace}`,
      path: `/api/v1/namespaces/${namespace}/secrets`,
      fieldSelector,
      logger: opts.logger,
      metrics: opts.metrics,
      signal: opts.signal,
      ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
      list: async (page) => {
        try {
          const list = await core.listNamespacedSecret({ namespace, fieldSelector, ...page });
          delete refusal.message;
          return list;
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
    lookup(namespace, name) {
      const cache = caches.get(namespace);
      if (cache === undefined) {
        return {
          permitted: false,
          message: `the agent may not read Secrets in namespace ${namespace}: ${HOW_TO_ENABLE}`,
        };
      }
      if (!cache.informer.hasSynced()) {
        // Only reachable for a refused namespace: the agent starts probing once every namespace has settled.
        return {
          permitted: false,
          message: `the API server refused the agent's list of Secrets in namespace ${namespace} (${cache.refusal.message ?? "not loaded yet"}); ${HOW_TO_ENABLE}`,
        };
      }
      return { permitted: true, secret: cache.informer.get(name, namespace) };
    },
    hasSettled: () =>
      [...caches.values()].every((c) => c.informer.hasSynced() || c.refusal.message !== undefined),
    settled: async () => {
      await Promise.all([...caches.values()].map((c) => c.settled));
    },
  };
}
