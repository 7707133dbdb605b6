/**
 * The agent's view of credentials Secrets (ADR 0020): one namespaced informer per namespace an administrator
 * enabled (`--credentials-namespaces`, the chart value `agent.credentialsNamespaces`), each narrowed server-side to
 * the credentials type (`startNamespacedInformers` of @swh/kube). No informer at all when none is enabled: the
 * agent's token has no Secret access then.
 *
 * A namespace whose list the API server refuses (403: its RoleBinding was deleted, or the flag lists a namespace
 * the chart did not bind) counts as settled, so that one tenant's namespace can never hold back the agent's start
 * or readiness for everybody else; its probes fail with `CredentialsNotPermitted` until a list succeeds. Any other
 * list error keeps the namespace unsettled, exactly like the other informers (fail static: the agent waits).
 */
import type { KubeConfig, V1Secret } from "@kubernetes/client-node";
import { POSTGRES_CREDENTIALS_SECRET_TYPE } from "@swh/crd-types";
import { type KubeMetrics, type Logger, startNamespacedInformers } from "@swh/kube";

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

/** Starts one Secret informer per namespace of `namespaces`; they run until `signal` aborts. */
export function startCredentialsSecrets(opts: {
  kubeConfig: KubeConfig;
  namespaces: readonly string[];
  logger: Logger;
  metrics: KubeMetrics;
  signal: AbortSignal;
  resyncMs?: number;
}): CredentialsSecrets {
  const caches = startNamespacedInformers<V1Secret>({
    ...opts,
    apiPath: "/api/v1",
    resource: "secrets",
    fieldSelector: `type=${POSTGRES_CREDENTIALS_SECRET_TYPE}`,
  });
  return {
    lookup(namespace, name) {
      const found = caches.lookup(namespace, name);
      if (found.state === "cached") return { permitted: true, secret: found.object };
      if (found.state === "notWatched") {
        return {
          permitted: false,
          message: `the agent may not read Secrets in namespace ${namespace}: ${HOW_TO_ENABLE}`,
        };
      }
      // Only reachable for a refused namespace: the agent starts probing once every namespace has settled.
      return {
        permitted: false,
        message: `the API server refused the agent's list of Secrets in namespace ${namespace} (${found.refusal ?? "not loaded yet"}); ${HOW_TO_ENABLE}`,
      };
    },
    hasSettled: () => caches.hasSettled(),
    settled: () => caches.settled(),
  };
}
