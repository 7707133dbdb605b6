/**
 * Listening and closing for the apps' two operations servers (health and metrics), one implementation for both.
 * Without a host a server listens on every interface: `::` (both families on a dual-stack kernel), or `0.0.0.0`
 * where IPv6 is disabled.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";

/** A listening operations server. */
export interface OpsServer {
  /** The bound port (a requested 0 resolved). */
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `host` (every interface when undefined) and `port`; rejects when the address cannot be bound. */
export async function listenOps(
  server: Server,
  address: { host?: string | undefined; port: number },
  logger: Logger,
  onClose: () => void = () => {},
): Promise<OpsServer> {
  // Scrapers and probes use short requests; do not let idle keep-alive sockets delay shutdown.
  server.keepAliveTimeout = 5_000;
  let host = address.host ?? "::";
  try {
    await bind(server, host, address.port);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (address.host !== undefined || (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL")) throw err;
    host = "0.0.0.0";
    await bind(server, host, address.port);
  }
  server.on("error", (err) => logger.error("ops server error", { err }));
  const port = (server.address() as AddressInfo).port;
  logger.info("ops server listening", { host, port });
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        onClose();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

function bind(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Answers with a short plain-text body. */
export function answerText(
  res: { writeHead(status: number, headers: Record<string, string>): { end(body: string): void } },
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(body);
}
