/**
 * gRPC health probe: one `grpc.health.v1.Health/Check` call over a fresh HTTP/2 connection to the given address,
 * with Node's `http2` and the few bytes of protobuf in `internal/grpc-health-codec.ts`. `@grpc/grpc-js` was
 * measured against it and costs more CPU per probe and a protobuf runtime in the agent (ADR 0027); a fresh
 * connection per probe is required anyway, as for HTTP (a server that stops accepting connections must be noticed).
 */
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  constants as h2,
  connect as http2Connect,
  type IncomingHttpHeaders,
} from "node:http2";
import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { checkServerIdentity, type TLSSocket, connect as tlsConnect } from "node:tls";
import type { GrpcProbeSpec } from "@swh/crd-types";
import { GRPC_AUTHORITY_PATTERN } from "@swh/crd-types/internal";
import { runAttempt } from "./internal/attempt.js";
import { checkAddress, formatAddress } from "./internal/check-address.js";
import { closeSocket } from "./internal/close-socket.js";
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  GRPC_STATUS_NAMES,
  HEALTH_CHECK_PATH,
  SERVING_STATUS,
} from "./internal/grpc-health-codec.js";
import { describeError, reasonForSocketError } from "./internal/socket-errors.js";
import {
  type ProbeAddress,
  ProbeConfigError,
  type ProbeOptions,
  type ProbeReason,
  type ProbeResult,
} from "./probe-result.js";

/** What `host` may be: the schema's pattern for `grpc.host`, for callers that bypass the schema. */
const AUTHORITY = new RegExp(GRPC_AUTHORITY_PATTERN);

/** gRPC probe settings: the `grpc` sub-object of a probe spec without `targetPort`; every field optional. */
export type GrpcProbeConfig = Omit<GrpcProbeSpec, "targetPort">;

/** Bound on the response message (a HealthCheckResponse is 2 bytes plus 5 of framing). */
export const MAX_GRPC_MESSAGE_BYTES = 4 * 1024;
/** Bound on the response's header list (headers or trailers), advertised to the server and enforced. */
const MAX_GRPC_HEADER_LIST_BYTES = 16 * 1024;

const HTTP2_ERROR_NAMES = new Map(
  Object.entries(h2)
    .filter(([name]) => name.startsWith("NGHTTP2_") && !name.startsWith("NGHTTP2_SESSION"))
    .map(([name, code]) => [code as number, name.slice("NGHTTP2_".length)]),
);
function http2ErrorName(code: number): string {
  return HTTP2_ERROR_NAMES.get(code) ?? `code ${code}`;
}

/** A readable, bounded text from a server-supplied header value (grpc-message, content-type). */
function headerText(value: string | string[] | undefined, max = 120): string {
  const text = (Array.isArray(value) ? value.join(",") : (value ?? "")).replace(/[^\x20-\x7e]/g, "?");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The probe's verdict on a finished call: grpc-status (and message), else the decoded serving status. */
function judge(
  grpcStatus: number,
  grpcMessage: string,
  body: Buffer,
): { ok: boolean; message: string; reason?: ProbeReason } {
  const name = GRPC_STATUS_NAMES[grpcStatus] ?? `status ${grpcStatus}`;
  const detail = grpcMessage ? `: ${grpcMessage}` : "";
  if (grpcStatus === 12)
    return { ok: false, reason: "GRPCUnimplemented", message: `UNIMPLEMENTED${detail} (no health service)` };
  // The reference health servers answer Check for an unregistered service with NOT_FOUND.
  if (grpcStatus === 5) return { ok: false, reason: "GRPCServiceUnknown", message: `NOT_FOUND${detail}` };
  if (grpcStatus !== 0) return { ok: false, reason: "GRPCError", message: `gRPC status ${name}${detail}` };
  const decoded = decodeHealthCheckResponse(body);
  if (!decoded.ok) return { ok: false, reason: "ProtocolError", message: decoded.message };
  switch (decoded.status) {
    case SERVING_STATUS.SERVING:
      return { ok: true, message: "SERVING" };
    case SERVING_STATUS.NOT_SERVING:
      return { ok: false, reason: "GRPCNotServing", message: "NOT_SERVING" };
    case SERVING_STATUS.SERVICE_UNKNOWN:
      return { ok: false, reason: "GRPCServiceUnknown", message: "SERVICE_UNKNOWN" };
    case SERVING_STATUS.UNKNOWN:
      return { ok: false, reason: "GRPCStatusUnknown", message: "UNKNOWN serving status" };
    default:
      return { ok: false, reason: "GRPCStatusUnknown", message: `serving status ${decoded.status}` };
  }
}

/** Reason of an error raised by the HTTP/2 layer or the socket under it. */
function reasonForError(err: NodeJS.ErrnoException, inTls: boolean): ProbeReason {
  const code = err.code ?? "";
  if (code === "ERR_HTTP2_GOAWAY_SESSION" || code === "ERR_HTTP2_STREAM_CANCEL") return "ConnectionReset";
  if (code.startsWith("ERR_HTTP2_")) return "ProtocolError";
  return reasonForSocketError(err, inTls);
}

/**
 * Calls `grpc.health.v1.Health/Check` for `config.service` (default "", the whole server) on `target` and
 * succeeds when the answer is `SERVING`. Failures: `GRPCNotServing`, `GRPCServiceUnknown` (SERVICE_UNKNOWN or
 * NOT_FOUND), `GRPCStatusUnknown`, `GRPCUnimplemented`, `GRPCError` (another gRPC status), `ProtocolError` (not a
 * gRPC server, malformed or oversized answer), the transport's reasons (`ConnectionRefused`, `ConnectionReset`
 * also for GOAWAY and RST_STREAM, `TLSError`) and `Timeout` — the deadline covers connect, TLS, HTTP/2 settings
 * and the call. The connection goes to `target` only; `config.host` is the `:authority` and TLS server name.
 */
export function probeGrpc(
  target: ProbeAddress,
  config: GrpcProbeConfig,
  opts: ProbeOptions,
): Promise<ProbeResult> {
  checkAddress(target);
  const authority = config.host ?? formatAddress(target);
  if (!AUTHORITY.test(authority))
    throw new ProbeConfigError("host", "must be a host name or [IPv6 address], optionally with :port");
  const request = encodeHealthCheckRequest(config.service ?? "");
  const tls = config.tls === true;
  return runAttempt(opts, (attempt) => {
    let inTls = false;
    let socket: Socket | TLSSocket;
    let session: ClientHttp2Session | undefined;
    const fail = (err: NodeJS.ErrnoException) =>
      attempt.finish(false, describeError(err), reasonForError(err, inTls));
    attempt.phase("connecting");
    if (tls) {
      const name = config.host?.replace(/:\d+$/, "");
      const verify = config.insecureSkipTLSVerify !== true;
      const tlsSocket = tlsConnect({
        host: target.host,
        port: target.port,
        // SNI carries DNS names only (RFC 6066); an IP is checked against the certificate's IP SANs instead.
        ...(name && isIP(name) === 0 ? { servername: name } : {}),
        rejectUnauthorized: verify,
        ...(config.caCert ? { ca: config.caCert } : {}),
        checkServerIdentity: (_host, cert) =>
          verify ? checkServerIdentity(name ?? target.host, cert) : undefined,
        ALPNProtocols: ["h2"],
      });
      tlsSocket.once("connect", () => {
        attempt.reached("connect");
        inTls = true;
        attempt.phase("in the TLS handshake");
      });
      tlsSocket.once("secureConnect", () => {
        attempt.reached("tls");
        inTls = false;
        if (tlsSocket.alpnProtocol !== "h2")
          return attempt.finish(
            false,
            `the server did not agree to HTTP/2 in TLS (ALPN ${String(tlsSocket.alpnProtocol)}): not a gRPC server`,
            "ProtocolError",
          );
        call();
      });
      socket = tlsSocket;
    } else {
      socket = tcpConnect({ host: target.host, port: target.port });
      socket.once("connect", call);
    }
    socket.on("error", fail);

    function call(): void {
      // The connection is open (over TLS, its TCP connect was marked already: the first mark of a phase counts).
      attempt.reached("connect");
      // Runs in a socket event: whatever throws here must end the attempt, never escape as an uncaught error.
      try {
        sendCall();
      } catch (err) {
        attempt.finish(false, `could not send the call: ${(err as Error).message}`, "Error");
      }
    }
    function sendCall(): void {
      attempt.phase("waiting for the server's HTTP/2 settings");
      // The URL only names the session; the connection is `socket` and the :authority header is set below.
      const s = http2Connect(`${tls ? "https" : "http"}://${formatAddress(target)}`, {
        createConnection: () => socket,
        settings: { enablePush: false, maxHeaderListSize: MAX_GRPC_HEADER_LIST_BYTES },
        maxHeaderListPairs: 64,
        maxSessionMemory: 1,
      });
      session = s;
      s.on("error", fail);
      s.once("remoteSettings", () => {
        if (!attempt.done) attempt.phase("waiting for the response");
      });
      s.on("goaway", (code: number, lastStreamId: number) => {
        // A graceful GOAWAY that still covers our stream lets the answer arrive; anything else ends the call.
        if (code !== h2.NGHTTP2_NO_ERROR || lastStreamId < 1)
          attempt.finish(
            false,
            `the server sent GOAWAY (${http2ErrorName(code)}) before answering`,
            "ConnectionReset",
          );
      });
      const stream: ClientHttp2Stream = s.request({
        [h2.HTTP2_HEADER_METHOD]: "POST",
        [h2.HTTP2_HEADER_PATH]: HEALTH_CHECK_PATH,
        [h2.HTTP2_HEADER_SCHEME]: tls ? "https" : "http",
        [h2.HTTP2_HEADER_AUTHORITY]: authority,
        [h2.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
        [h2.HTTP2_HEADER_TE]: "trailers",
        [h2.HTTP2_HEADER_USER_AGENT]: "swh-probe/1",
        "grpc-accept-encoding": "identity",
        "grpc-timeout": `${Math.max(1, Math.ceil(opts.timeoutMs))}m`,
      });
      stream.on("error", (err: NodeJS.ErrnoException) => {
        // A reset stream surfaces as an error first; name the server's RST_STREAM code rather than Node's wrapper.
        const code = stream.rstCode ?? h2.NGHTTP2_NO_ERROR;
        if (err.code === "ERR_HTTP2_STREAM_ERROR" && code !== h2.NGHTTP2_NO_ERROR)
          return resetBeforeAnswer(code);
        fail(err);
      });
      stream.end(request);
      const chunks: Buffer[] = [];
      let bodyBytes = 0;
      stream.once("response", (headers: IncomingHttpHeaders) => {
        attempt.reached("firstByte");
        const status = headers[h2.HTTP2_HEADER_STATUS];
        const contentType = headerText(headers[h2.HTTP2_HEADER_CONTENT_TYPE]);
        if (Number(status) !== 200 || !/^application\/grpc([+;]|$)/.test(contentType))
          return attempt.finish(
            false,
            `not a gRPC server: HTTP status ${String(status)}, content-type "${contentType}"`,
            "ProtocolError",
          );
        // Trailers-Only: an error status comes in the headers, with no message.
        if (headers["grpc-status"] !== undefined) finishWith(headers);
        else attempt.phase("reading the response");
      });
      stream.on("data", (chunk: Buffer) => {
        bodyBytes += chunk.length;
        if (bodyBytes > MAX_GRPC_MESSAGE_BYTES)
          return attempt.finish(
            false,
            `the response message is over ${MAX_GRPC_MESSAGE_BYTES} bytes`,
            "ProtocolError",
          );
        chunks.push(chunk);
      });
      stream.once("trailers", finishWith);
      stream.once("close", () => {
        if (attempt.done) return;
        const code = stream.rstCode ?? h2.NGHTTP2_NO_ERROR;
        if (code !== h2.NGHTTP2_NO_ERROR) resetBeforeAnswer(code);
        else attempt.finish(false, "the call ended without a grpc-status", "ProtocolError");
      });
      function resetBeforeAnswer(code: number): void {
        const reset = `the stream was reset (RST_STREAM ${http2ErrorName(code)}) before an answer`;
        // nghttp2 resets with ENHANCE_YOUR_CALM itself when the server's headers exceed the bounds set above.
        if (code === h2.NGHTTP2_ENHANCE_YOUR_CALM)
          attempt.finish(false, `${reset}: headers over the probe's bounds, or a flood`, "ProtocolError");
        else attempt.finish(false, reset, "ConnectionReset");
      }
      function finishWith(trailers: IncomingHttpHeaders): void {
        const raw = headerText(trailers["grpc-status"]);
        const grpcStatus = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
        const verdict = Number.isNaN(grpcStatus)
          ? { ok: false, message: `malformed grpc-status "${raw}"`, reason: "ProtocolError" as const }
          : judge(grpcStatus, headerText(trailers["grpc-message"]), Buffer.concat(chunks));
        attempt.finish(verdict.ok, verdict.message, verdict.reason);
      }
    }
    return () => {
      closeSocket(socket);
      session?.destroy();
    };
  });
}
