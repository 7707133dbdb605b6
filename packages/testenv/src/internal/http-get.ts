import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** Result of {@link httpGet}: the status code and body text. */
export interface HttpGetResult {
  status: number;
  body: string;
}

/**
 * One GET request (http or https, verifying the server against `caPem` when given) with an optional
 * bearer token; rejects on network errors or after `timeoutMs`.
 */
export function httpGet(
  url: string,
  opts: { caPem?: string; token?: string; timeoutMs?: number } = {},
): Promise<HttpGetResult> {
  return new Promise((resolve, reject) => {
    const parsed = new URL(url);
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    const requestFn = parsed.protocol === "https:" ? httpsRequest : httpRequest;
    const req = requestFn(
      parsed,
      { method: "GET", headers, timeout: opts.timeoutMs ?? 5_000, ...(opts.caPem ? { ca: opts.caPem } : {}) },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on("error", reject);
    req.end();
  });
}
