/**
 * HTTP(S) probe over a fresh connection to the given address. It speaks just enough HTTP/1.1 to send one
 * request and read the response head: a per-probe undici Client measured 0.29 CPU-s per 1,000 probes and
 * 257 MB RSS at 2,000 targets, over this package's budget (see README "Performance"), while a fresh socket per
 * probe is required anyway (a server that stops accepting connections must be noticed).
 */
import { type Socket, connect as tcpConnect } from "node:net";
import { checkServerIdentity, connect as tlsConnect } from "node:tls";
import type { HttpProbeSpec } from "@swh/crd-types";
import { runAttempt } from "./internal/attempt.js";
import { checkAddress, formatAddress } from "./internal/check-address.js";
import { closeSocket } from "./internal/close-socket.js";
import { parseHostField } from "./internal/http-host.js";
import type { ResponseHead } from "./internal/http-response-head.js";
import { type ReadOutcome, ResponseReader } from "./internal/http-response-reader.js";
import { quoteText } from "./internal/quote-text.js";
import { describeError, reasonForSocketError } from "./internal/socket-errors.js";
import { type ProbeAddress, ProbeConfigError, type ProbeOptions, type ProbeResult } from "./probe-result.js";

/** HTTP probe settings: the `http` sub-object of a probe spec without `targetPort`; every field optional. */
export type HttpProbeConfig = Omit<HttpProbeSpec, "targetPort">;

/** Bound on the response head; a larger head is a protocol error (kubelet-like limit). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** How much of the body is read (for `body` matching) before the connection is closed. */
export const MAX_BODY_BYTES = 4 * 1024;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** True when `value` has no control character other than horizontal tab (no header injection via CR/LF). */
function hasNoControlCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

/** Builds the request bytes, validating every user-supplied piece (throws `ProbeConfigError` naming the field). */
export function buildHttpRequest(target: ProbeAddress, config: HttpProbeConfig): string {
  const method = config.method ?? "GET";
  if (method !== "GET" && method !== "HEAD")
    throw new ProbeConfigError("method", `must be GET or HEAD, got ${method}`);
  const path = config.path ?? "/";
  if (!path.startsWith("/") || !/^[\x21-\x7e]+$/.test(path))
    throw new ProbeConfigError("path", "must start with / and contain only visible ASCII characters");
  if (config.host !== undefined && !/^[\x21-\x7e]+$/.test(config.host))
    throw new ProbeConfigError("host", "must contain only visible ASCII characters");
  const host = config.host === undefined ? formatAddress(target) : parseHostField(config.host).header;
  const defaults = new Map<string, string>([
    ["host", `Host: ${host}`],
    ["user-agent", "User-Agent: swh-probe/1"],
    ["accept", "Accept: */*"],
  ]);
  const custom: string[] = [];
  for (const [i, h] of (config.httpHeaders ?? []).entries()) {
    if (!TOKEN.test(h.name))
      throw new ProbeConfigError(`httpHeaders[${i}].name`, "is not a valid header name");
    if (!hasNoControlCharacters(h.value))
      throw new ProbeConfigError(`httpHeaders[${i}].value`, "contains control characters");
    const key = h.name.toLowerCase();
    // Framing is ours: one request, no body, connection closed afterwards.
    if (key === "connection" || key === "content-length" || key === "transfer-encoding") continue;
    // A user header replaces the default of the same name (e.g. a custom Host or User-Agent), like the kubelet.
    defaults.delete(key);
    custom.push(`${h.name}: ${h.value}`);
  }
  const fields = [...defaults.values(), ...custom];
  return `${method} ${path} HTTP/1.1\r\n${fields.join("\r\n")}\r\nConnection: close\r\n\r\n`;
}

/** True when `status` is accepted by `codes` (empty or missing = 200..399). */
function isAcceptedStatus(status: number, codes: readonly number[] | undefined): boolean {
  return codes && codes.length > 0 ? codes.includes(status) : status >= 200 && status <= 399;
}

/**
 * Judges a complete response: the status first (`HTTPStatus`), then the expected headers (`HTTPHeader`: some field
 * of the name has exactly the value, leading and trailing blanks aside), then the body expectation (`HTTPBody`) on the
 * first `MAX_BODY_BYTES` of the (de-chunked) body, compared byte for byte with the UTF-8 of the expected text.
 */
function judgeHttpResponse(
  head: Pick<ResponseHead, "status" | "reason" | "fields">,
  body: Buffer,
  config: Pick<HttpProbeConfig, "code" | "body" | "responseHeaders">,
): Pick<ProbeResult, "ok" | "message" | "reason"> {
  const { status } = head;
  const text = `HTTP ${status}${head.reason ? ` ${head.reason}` : ""}`;
  if (!isAcceptedStatus(status, config.code))
    return { ok: false, message: `${text} is not an accepted status`, reason: "HTTPStatus" };
  for (const expected of config.responseHeaders ?? []) {
    const name = expected.name.toLowerCase();
    const values = head.fields.filter(([n]) => n === name).map(([, v]) => v);
    if (values.includes(expected.value.trim())) continue;
    const found = values.length === 0 ? "is missing" : "has another value";
    const message = `${text}: header ${expected.name} ${found} (expected ${quoteText(expected.value)})`;
    return { ok: false, message, reason: "HTTPHeader" };
  }
  if (!config.body) return { ok: true, message: text };
  const { contains, notContains } = config.body;
  const window = () => `${text}: the first ${Math.min(body.length, MAX_BODY_BYTES)} bytes of the body`;
  if (contains !== undefined && !body.includes(contains, 0, "utf8"))
    return { ok: false, message: `${window()} do not contain ${quoteText(contains)}`, reason: "HTTPBody" };
  if (notContains !== undefined && body.includes(notContains, 0, "utf8"))
    return { ok: false, message: `${window()} contain ${quoteText(notContains)}`, reason: "HTTPBody" };
  return { ok: true, message: text };
}

/**
 * Sends one GET/HEAD request to `target` (the connection goes to that IP only; `config.host` is only the Host
 * header and TLS server name) and succeeds when the status is accepted and the body matches `config.body`.
 * Redirects are never followed. The response is read as RFC 9112 frames it (see `ResponseReader`), at most
 * `MAX_BODY_BYTES` of body, and the connection is closed as soon as the response is complete, whether or not the
 * server honours `Connection: close`. HTTPS verifies against `config.caCert` or the system roots, and the
 * certificate's name against `config.host` or else the IP, unless `insecureSkipTLSVerify`; SNI is sent only
 * for a DNS name (see `parseHostField`).
 */
export function probeHttp(
  target: ProbeAddress,
  config: HttpProbeConfig,
  opts: ProbeOptions,
): Promise<ProbeResult> {
  checkAddress(target);
  const request = buildHttpRequest(target, config);
  const method = config.method ?? "GET";
  const https = (config.scheme ?? "HTTP") === "HTTPS";
  if (config.scheme !== undefined && config.scheme !== "HTTP" && !https)
    throw new ProbeConfigError("scheme", `must be HTTP or HTTPS, got ${String(config.scheme)}`);
  if (config.body && method !== "GET")
    throw new ProbeConfigError("body", "needs method GET (a HEAD response has no body)");
  for (const [i, h] of (config.responseHeaders ?? []).entries())
    if (!TOKEN.test(h.name))
      throw new ProbeConfigError(`responseHeaders[${i}].name`, "is not a valid header name");
  return runAttempt(opts, (attempt) => {
    let inTls = false;
    let socket: Socket;
    attempt.phase("connecting");
    if (https) {
      const host = config.host === undefined ? undefined : parseHostField(config.host);
      const verify = config.insecureSkipTLSVerify !== true;
      socket = tlsConnect({
        host: target.host,
        port: target.port,
        ...(host?.sni ? { servername: host.tlsName } : {}),
        rejectUnauthorized: verify,
        ...(config.caCert ? { ca: config.caCert } : {}),
        checkServerIdentity: (_host, cert) =>
          verify ? checkServerIdentity(host?.tlsName ?? target.host, cert) : undefined,
        ALPNProtocols: ["http/1.1"],
      });
      socket.once("connect", () => {
        attempt.reached("connect");
        inTls = true;
        attempt.phase("in the TLS handshake");
      });
      socket.once("secureConnect", () => {
        attempt.reached("tls");
        inTls = false;
        send();
      });
    } else {
      socket = tcpConnect({ host: target.host, port: target.port });
      socket.once("connect", send);
    }
    function send(): void {
      // The connection is open (over TLS, its TCP connect was marked already: the first mark of a phase counts).
      attempt.reached("connect");
      attempt.phase("waiting for response headers");
      socket.write(request);
    }

    const reader = new ResponseReader({ method, maxHeadBytes: MAX_HEAD_BYTES, maxBodyBytes: MAX_BODY_BYTES });
    function settle(outcome: ReadOutcome): void {
      if (outcome.kind === "more") {
        if (reader.responseHead) attempt.phase("reading the response body");
        return;
      }
      if (outcome.kind === "error") {
        // A peer that closes before any head dropped the connection; anything else is a malformed response.
        const cut = !reader.responseHead && outcome.message.startsWith("connection closed");
        attempt.finish(false, outcome.message, cut ? "ConnectionReset" : "ProtocolError");
        return;
      }
      const { ok, message, reason } = judgeHttpResponse(outcome.head, outcome.body, config);
      attempt.finish(ok, message, reason);
    }
    socket.on("data", (chunk: Buffer) => {
      if (attempt.done) return;
      attempt.reached("firstByte");
      settle(reader.push(chunk));
    });
    socket.on("end", () => {
      if (!attempt.done) settle(reader.end());
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      attempt.finish(false, describeError(err), reasonForSocketError(err, inTls));
    });
    return () => closeSocket(socket);
  });
}
