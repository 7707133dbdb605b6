/**
 * Plain JSON requests to the API server, for the hot write paths of the apps. client-node's generated clients
 * send every request through WHATWG `fetch`, its web streams and an `ObjectSerializer` that turns each response
 * into class instances; in a CPU profile of the controller reconciling 1,000 new SWHs (bench scale) that
 * machinery was about a third of the controller's CPU. This client sends the same request over the same
 * authenticated connection pool with undici's `Dispatcher.request` and parses the answer with `JSON.parse`.
 * Authentication (tokens, token files, exec plugins, client certificates) stays the KubeConfig's: its
 * `applySecurityAuthentication` runs for every request, so with a `PooledKubeConfig` the connections are shared
 * with the generated clients.
 */
import { type KubeConfig, RequestContext } from "@kubernetes/client-node";
import { type Dispatcher, getGlobalDispatcher } from "undici";

/** An HTTP method the client sends. */
export type JsonMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request: `path` is the API path (`/api/v1/namespaces/ns/services`), `body` is sent as JSON. */
export interface JsonRequest {
  method: JsonMethod;
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Readonly<Record<string, string | undefined>>;
  body?: unknown;
  /** Content type of the body; default `application/json` (PATCH: say which patch it is). */
  contentType?: string;
  signal?: AbortSignal;
}

/** Sends API requests and resolves with the parsed JSON answer. */
export interface KubeJsonClient {
  /** Resolves with the response body parsed as JSON; rejects with `KubeApiError` for an HTTP status ≥ 400. */
  request<T>(req: JsonRequest): Promise<T>;
}

/**
 * An HTTP error answer. `code` is the HTTP status and `body` the parsed `Status` object (or the raw text), the
 * same shape as client-node's `ApiException`, so code that reads either needs no change.
 */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  readonly code: number;
  readonly body: unknown;
  constructor(code: number, body: unknown, method: JsonMethod, path: string) {
    super(`${method} ${path}: HTTP ${code}: ${messageOf(body)}`);
    this.code = code;
    this.body = body;
  }
}

/** A client for the current cluster and user of `kubeConfig`. */
export function createJsonClient(kubeConfig: KubeConfig): KubeJsonClient {
  return {
    async request<T>(req: JsonRequest): Promise<T> {
      const server = kubeConfig.getCurrentCluster()?.server;
      if (server === undefined) throw new Error("kubeconfig: no current cluster");
      // The server URL may carry a path prefix (an API proxy in front of several clusters).
      const base = new URL(server);
      const path = `${base.pathname.replace(/\/$/, "")}${req.path}${queryString(req.query)}`;
      const context = new RequestContext(`${base.origin}${path}`, req.method);
      await kubeConfig.applySecurityAuthentication(context);
      // No dispatcher when the cluster needs no TLS settings of its own (system roots, token auth): client-node
      // then uses the global one too.
      const dispatcher: Pick<Dispatcher, "request"> = context.getDispatcher() ?? getGlobalDispatcher();
      const headers: Record<string, string> = { ...context.getHeaders(), accept: "application/json" };
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers["content-type"] = req.contentType ?? "application/json";
      }
      const response = await dispatcher.request({
        origin: base.origin,
        path,
        method: req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(req.signal === undefined ? {} : { signal: req.signal }),
      });
      const text = await response.body.text();
      const parsed = parseJson(text);
      if (response.statusCode >= 400)
        throw new KubeApiError(response.statusCode, parsed ?? text, req.method, req.path);
      if (parsed === undefined && text !== "")
        throw new Error(`${req.method} ${req.path}: the answer is not JSON: ${text.slice(0, 200)}`);
      return parsed as T;
    },
  };
}

function queryString(query: JsonRequest["query"]): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function messageOf(body: unknown): string {
  if (typeof body === "string") return body === "" ? "empty answer" : body.slice(0, 200);
  if (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { message?: unknown }).message === "string"
  )
    return (body as { message: string }).message;
  return "no Status in the answer";
}
