/**
 * Who may read `/metrics`: the API server decides, as it does for its own `/metrics` and as kube-rbac-proxy and
 * controller-runtime's `WithAuthenticationAndAuthorization` filter do. A bearer token is authenticated with a
 * TokenReview; its user is authorised with a SubjectAccessReview for `get` on the non-resource URL `/metrics`
 * (granted by the chart's metrics-reader ClusterRole). Decisions are cached briefly, keyed by the token's SHA-256
 * (the token itself is never kept or logged); an API error is never cached and never reads as an allow.
 */
import { createHash } from "node:crypto";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Clock } from "./clock.js";
import { createJsonClient, type KubeJsonClient } from "./json-client.js";
import { TtlCache } from "./ttl-cache.js";

/** The outcome of one review: a known user with the permission, a known user without it, or no known user. */
export type AccessDecision = "allowed" | "denied" | "unauthenticated";

/** Decides whether a bearer token may read the metrics. */
export interface MetricsAccess {
  /** Resolves with the decision; rejects when it could not be made (the API server did not answer). */
  review(token: string): Promise<AccessDecision>;
}

/** The non-resource URL and verb a scraper needs (ClusterRole rule `nonResourceURLs: ["/metrics"]`, `get`). */
const METRICS_ACCESS = { path: "/metrics", verb: "get" } as const;

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

/**
 * Reviews tokens against the API server of `kubeConfig`, as the app's own identity (which needs `create` on
 * `tokenreviews` and `subjectaccessreviews`). Every call asks the API server: wrap it in `cachedMetricsAccess`.
 */
export function kubeMetricsAccess(
  kubeConfig: KubeConfig,
  client: KubeJsonClient = createJsonClient(kubeConfig),
): MetricsAccess {
  return {
    async review(token) {
      const review = await client.request<{ status?: TokenReviewStatus }>({
        method: "POST",
        path: "/apis/authentication.k8s.io/v1/tokenreviews",
        // No audiences: the API server's own, which ServiceAccount tokens (projected or not) carry.
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      });
      const user = review.status?.user;
      if (review.status?.authenticated !== true || !user?.username) return "unauthenticated";
      const access = await client.request<{ status?: { allowed?: boolean } }>({
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups ?? [],
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: METRICS_ACCESS,
          },
        },
      });
      return access.status?.allowed === true ? "allowed" : "denied";
    },
  };
}

/** Options of `cachedMetricsAccess`; the defaults suit a scrape every 10–60 s. */
export interface MetricsAccessCacheOptions {
  /** How long an allow is reused. Default 30 s: a revoked reader keeps access at most this long. */
  allowedTtlMs?: number;
  /** How long a deny or an unknown token is reused. Default 10 s: a new grant works after at most this long. */
  deniedTtlMs?: number;
  /** Distinct tokens remembered; the oldest is forgotten first. Default 1024. */
  maxEntries?: number;
  /** Reviews in flight at once; beyond it `review` rejects (503) so a flood of made-up tokens cannot queue up API calls. Default 64. */
  maxPending?: number;
  clock?: Clock;
}

/**
 * Caches `inner`'s decisions by token hash: allows for `allowedTtlMs`, denies and unknown tokens for `deniedTtlMs`;
 * errors are not cached. Concurrent reviews of one token share one call.
 */
export function cachedMetricsAccess(
  inner: MetricsAccess,
  opts: MetricsAccessCacheOptions = {},
): MetricsAccess {
  const allowedTtlMs = opts.allowedTtlMs ?? 30_000;
  const deniedTtlMs = opts.deniedTtlMs ?? 10_000;
  const maxPending = opts.maxPending ?? 64;
  const cache = new TtlCache<string, AccessDecision>({
    maxEntries: opts.maxEntries ?? 1024,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const pending = new Map<string, Promise<AccessDecision>>();
  return {
    review(token) {
      const key = createHash("sha256").update(token).digest("base64");
      const cached = cache.get(key);
      if (cached !== undefined) return Promise.resolve(cached);
      const running = pending.get(key);
      if (running !== undefined) return running;
      if (pending.size >= maxPending) {
        return Promise.reject(new Error(`metrics access: ${pending.size} reviews already in flight`));
      }
      const review = inner.review(token).then(
        (decision) => {
          pending.delete(key);
          cache.set(key, decision, decision === "allowed" ? allowedTtlMs : deniedTtlMs);
          return decision;
        },
        (err: unknown) => {
          pending.delete(key);
          throw err;
        },
      );
      pending.set(key, review);
      return review;
    },
  };
}
