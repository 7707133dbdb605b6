import { createServer } from "node:net";

/** A TCP port on `host` that was free a moment ago (the kernel picked it; a tiny race remains). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error(`no port from ${String(address)}`));
      });
    });
  });
}
