/** A scraper's view of an HTTPS endpoint (the apps' /metrics): status, body and the certificate presented. */
import { request } from "node:https";
import type { TLSSocket } from "node:tls";

/** What a scraper sees: the status, the body and the certificate the server presented. */
export interface HttpsAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** SHA-256 fingerprint of the server's certificate. */
  fingerprint: string;
}

/**
 * GET (or `method`) to 127.0.0.1:`port` over a new TLS connection (no keep-alive, so every call sees the certificate served now). Without `ca` the
 * server's certificate is not verified, as a scraper with `insecureSkipVerify` does.
 */
export function httpsGet(
  port: number,
  path: string,
  opts: { token?: string | undefined; ca?: string; servername?: string; method?: string } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        agent: false,
        ...(opts.ca === undefined
          ? { rejectUnauthorized: false }
          : { ca: opts.ca, servername: opts.servername ?? "localhost" }),
        headers: opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` },
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? "";
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, fingerprint }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}
