/**
 * gRPC health probe: one `grpc.health.v1.Health/Check` call over a fresh HTTP/2 connection to the given address,
 * with the probe's own HTTP/2 client (`internal/http2-unary-call.ts`, HPACK in `internal/hpack/`) and the few
 * bytes of protobuf in `internal/grpc-health-codec.ts`. `node:http2` made a session and stream objects per check,
 * two thirds of the probe's cost (ADR 0044); `@grpc/grpc-js` costs more still and brings a protobuf runtime
 * (ADR 0027). A fresh connection per probe is required anyway, as for HTTP (a server that stops accepting
 * connections must be noticed). ADR 0046 has the figures.
 */
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
import { indexedField, literalField } from "./internal/hpack/encode.js";
import { http2ErrorName } from "./internal/http2-frames.js";
import {
  type CallFailure,
  HEADER_LIST_LIMITS,
  type HeaderFields,
  Http2UnaryCall,
} from "./internal/http2-unary-call.js";
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

/** A readable, bounded text from a server-supplied header value (grpc-message, content-type). */
function headerText(value: string | undefined, max = 120): string {
  const text = (value ?? "").replace(/[^\x20-\x7e]/g, "?");
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

/** The reason and message of a call the HTTP/2 layer ended without an answer. */
function describeFailure(failure: CallFailure): { message: string; reason: ProbeReason } {
  switch (failure.kind) {
    case "goaway":
      return {
        message: `the server sent GOAWAY (${http2ErrorName(failure.code)}) before answering`,
        reason: "ConnectionReset",
      };
    case "reset":
      return {
        message: `the stream was reset (RST_STREAM ${http2ErrorName(failure.code)}) before an answer`,
        reason: "ConnectionReset",
      };
    case "headersTooLarge":
      return {
        message: `response headers over the probe's bounds (${HEADER_LIST_LIMITS.maxBytes} bytes, ${HEADER_LIST_LIMITS.maxFields} fields)`,
        reason: "ProtocolError",
      };
    case "endedWithoutTrailers":
      return { message: "the call ended without a grpc-status", reason: "ProtocolError" };
    case "protocol":
      return { message: `the server sent ${failure.message}`, reason: "ProtocolError" };
  }
}

/** The request's fields that are the same for every call: the pseudo-header fields before `:authority` by scheme, and
 * the regular ones after it (pseudo-header fields come first, RFC 9113 §8.3). */
const PSEUDO_FIELDS = {
  // :method POST, :scheme, :path
  http: [indexedField(3), indexedField(6), literalField(4, HEALTH_CHECK_PATH)],
  https: [indexedField(3), indexedField(7), literalField(4, HEALTH_CHECK_PATH)],
};
const REGULAR_FIELDS = [
  literalField(31, "application/grpc"), // content-type
  literalField("te", "trailers"),
  literalField(58, "swh-probe/1"), // user-agent
  literalField("grpc-accept-encoding", "identity"),
];

/** The request's header fields: what a gRPC client sends, with the deadline the probe has left. */
function requestFields(authority: string, tls: boolean, timeoutMs: number): Buffer[] {
  return [
    ...PSEUDO_FIELDS[tls ? "https" : "http"],
    literalField(1, authority), // :authority
    ...REGULAR_FIELDS,
    literalField("grpc-timeout", `${Math.max(1, Math.ceil(timeoutMs))}m`),
  ];
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
  const tls = config.tls === true;
  const opening = Http2UnaryCall.opening(
    requestFields(authority, tls, opts.timeoutMs),
    encodeHealthCheckRequest(config.service ?? ""),
  );
  return runAttempt(opts, (attempt) => {
    let inTls = false;
    let socket: Socket | TLSSocket;
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    const call = new Http2UnaryCall({
      send: (bytes) => socket.write(bytes),
      settings: () => attempt.phase("waiting for the response"),
      response: (headers, endStream) => {
        attempt.reached("firstByte");
        const status = headers.get(":status");
        const contentType = headerText(headers.get("content-type"));
        if (status !== "200" || !/^application\/grpc([+;]|$)/.test(contentType))
          return attempt.finish(
            false,
            `not a gRPC server: HTTP status ${String(status)}, content-type "${contentType}"`,
            "ProtocolError",
          );
        // Trailers-Only: an error status comes in the headers, with no message.
        if (endStream || headers.has("grpc-status")) finishWith(headers);
        else attempt.phase("reading the response");
      },
      data: (bytes) => {
        bodyBytes += bytes.length;
        if (bodyBytes > MAX_GRPC_MESSAGE_BYTES)
          return attempt.finish(
            false,
            `the response message is over ${MAX_GRPC_MESSAGE_BYTES} bytes`,
            "ProtocolError",
          );
        chunks.push(bytes);
      },
      trailers: finishWith,
      failed: (failure) => {
        const { message, reason } = describeFailure(failure);
        attempt.finish(false, message, reason);
      },
    });
    function finishWith(trailers: HeaderFields): void {
      const raw = headerText(trailers.get("grpc-status"));
      const grpcStatus = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
      const verdict = Number.isNaN(grpcStatus)
        ? { ok: false, message: `malformed grpc-status "${raw}"`, reason: "ProtocolError" as const }
        : judge(grpcStatus, headerText(trailers.get("grpc-message")), Buffer.concat(chunks));
      attempt.finish(verdict.ok, verdict.message, verdict.reason);
    }
    const fail = (err: NodeJS.ErrnoException) =>
      attempt.finish(false, describeError(err), reasonForSocketError(err, inTls));
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
        start();
      });
      socket = tlsSocket;
    } else {
      socket = tcpConnect({ host: target.host, port: target.port });
      socket.once("connect", start);
    }
    socket.on("error", fail);
    socket.on("data", (chunk: Buffer) => call.receive(chunk));
    socket.once("end", () =>
      attempt.finish(false, "the server closed the connection before answering", "ConnectionReset"),
    );

    function start(): void {
      // The connection is open (over TLS, its TCP connect was marked already: the first mark of a phase counts).
      attempt.reached("connect");
      attempt.phase("waiting for the server's HTTP/2 settings");
      socket.write(opening);
    }
    return () => {
      call.end();
      closeSocket(socket);
    };
  });
}
