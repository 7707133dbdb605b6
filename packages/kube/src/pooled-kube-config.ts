/**
 * A `KubeConfig` whose API requests share one connection pool. client-node 2.0.1 builds a new undici Agent for
 * every request (`applySecurityAuthentication`), so each list, write, Event and heartbeat opened a fresh TLS
 * connection with a freshly parsed CA/certificate context, and left it idling until the server closed it. For
 * the agent that was most of its CPU and native memory during a write burst (bench agent-footprint: hundreds of
 * TLS contexts at start-up); for the controller, TLS set-up was about half of its CPU while 1,000 new SWHs were
 * reconciled (bench scale, CPU profile). Here the first dispatcher built for a (cluster, user) is reused for `maxAgeMs`, then
 * replaced by the next fresh one, so rotated certificate files are still picked up; the replaced pool finishes
 * its in-flight requests (watches included) before it closes. Tokens travel in headers and are unaffected.
 */
import { KubeConfig, type RequestContext } from "@kubernetes/client-node";

type Dispatcher = NonNullable<ReturnType<RequestContext["getDispatcher"]>>;

/** How long one pool serves before the TLS material is re-read into a new one. */
const DEFAULT_POOL_MAX_AGE_MS = 5 * 60_000;

/** A `KubeConfig` reusing one dispatcher per (cluster, user) for `maxAgeMs` (see the file header). */
export class PooledKubeConfig extends KubeConfig {
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #pool: { key: string; dispatcher: Dispatcher; since: number } | undefined;

  constructor(opts: { maxAgeMs?: number; now?: () => number } = {}) {
    super();
    this.#maxAgeMs = opts.maxAgeMs ?? DEFAULT_POOL_MAX_AGE_MS;
    this.#now = opts.now ?? Date.now;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    if (fresh === undefined) return;
    const cluster = this.getCurrentCluster();
    const key = JSON.stringify([cluster?.name, cluster?.server, this.getCurrentUser()?.name]);
    const now = this.#now();
    const pool = this.#pool;
    if (pool !== undefined && pool.key === key && now - pool.since < this.#maxAgeMs) {
      // The fresh dispatcher has opened nothing yet; dropping it costs nothing.
      context.setDispatcher(pool.dispatcher);
      return;
    }
    this.#pool = { key, dispatcher: fresh, since: now };
    // close() lets running requests (long watches too) finish; only then are its sockets released.
    pool?.dispatcher.close().catch(() => {});
  }
}
