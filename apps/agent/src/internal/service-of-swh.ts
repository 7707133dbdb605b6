/**
 * The Service an SWH's endpoints are published for, as the agent's ownership check (ADR 0014) reads it. Agents
 * watch only Services carrying the controller's label (ADR 0025), so "not in the cache" means "absent, or present
 * without the label". Without the label is normal for a Service an older controller created (until the new
 * controller labels it on upgrade) or whose label a tenant removed (until the controller puts it back): treating
 * it as absent would withdraw healthy endpoints. So when the cache lacks the Service and this node has slices the
 * withholding would delete, the agent asks the API server once for that one Service and decides on the answer;
 * otherwise (nothing to lose) it waits for the label. The label is never trusted: the caller still checks the
 * controller reference on whatever this returns. A failing request throws, so the reconcile is retried and the
 * slices stay as they are (fail static).
 */
import type { CoreV1Api, V1Service } from "@kubernetes/client-node";

/** Where `serviceOfSwh` looks. */
export interface ServiceSources {
  /** The Service from the informer of labelled Services (undefined: not there). */
  cached(namespace: string, name: string): Readonly<V1Service> | undefined;
  /** True when this node has slices of the SWH that withholding would delete. */
  hasSlices(namespace: string, name: string): boolean;
  /** Reads the Service from the API server (undefined: it does not exist). */
  fetch(namespace: string, name: string): Promise<Readonly<V1Service> | undefined>;
}

/** The Service `namespace/name` (undefined: it does not exist), reading the API server only as the header says. */
export async function serviceOfSwh(
  namespace: string,
  name: string,
  sources: ServiceSources,
): Promise<Readonly<V1Service> | undefined> {
  const cached = sources.cached(namespace, name);
  if (cached !== undefined || !sources.hasSlices(namespace, name)) return cached;
  return sources.fetch(namespace, name);
}

/**
 * Reads one Service with a list narrowed to its name: the agent's role lists and watches Services but never GETs
 * one (ADR 0021: it holds only the verbs it uses), and a by-name list costs the API server the same.
 */
export async function fetchService(
  core: CoreV1Api,
  namespace: string,
  name: string,
): Promise<Readonly<V1Service> | undefined> {
  const list = await core.listNamespacedService({ namespace, fieldSelector: `metadata.name=${name}` });
  return list.items[0];
}
