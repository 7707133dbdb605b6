/** Real gRPC servers for probe tests: `@grpc/grpc-js` with the reference health service, or a scripted one. */
import { isIP } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation, service as healthService, type ServingStatusMap } from "grpc-health-check";
import { afterEach } from "vitest";

const started: grpc.Server[] = [];

afterEach(() => {
  for (const server of started.splice(0)) server.forceShutdown();
});

/** TLS material for a server: certificate chain and key in PEM. */
export interface ServerTls {
  certPem: string;
  keyPem: string;
}

async function bind(server: grpc.Server, host: string, tls?: ServerTls): Promise<number> {
  const credentials = tls
    ? grpc.ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(tls.certPem), private_key: Buffer.from(tls.keyPem) },
      ])
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${isIP(host) === 6 ? `[${host}]` : host}:0`, credentials, (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  started.push(server);
  return port;
}

/** Starts a grpc-js server with the reference health service (grpc-health-check) holding `statuses`. */
export async function startHealthServer(
  host: string,
  statuses: ServingStatusMap,
  tls?: ServerTls,
): Promise<{ port: number; health: HealthImplementation }> {
  const server = new grpc.Server();
  const health = new HealthImplementation(statuses);
  health.addToServer(server);
  const port = await bind(server, host, tls);
  return { port, health };
}

/** Starts a grpc-js server whose Check answers `answer` (a serving status number or a gRPC error). */
export async function startScriptedHealthServer(
  host: string,
  answer: { status: number } | { code: grpc.status; details: string },
  seen: { service: string; authority: string }[] = [],
): Promise<number> {
  const server = new grpc.Server();
  server.addService(healthService as grpc.ServiceDefinition, {
    check: (
      call: grpc.ServerUnaryCall<{ service: string }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      seen.push({
        service: call.request.service,
        authority: call.getHost(),
      });
      if ("code" in answer) callback({ code: answer.code, details: answer.details });
      else callback(null, { status: answer.status });
    },
  });
  return bind(server, host);
}

/** Starts a grpc-js server with no service at all (every call is UNIMPLEMENTED). */
export async function startServerWithoutHealth(host: string): Promise<number> {
  return bind(new grpc.Server(), host);
}
