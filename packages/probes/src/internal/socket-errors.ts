/** Maps socket and TLS errors to probe reason codes; the message keeps the original code for operators. */
import type { ProbeReason } from "../probe-result.js";

const TLS_CERT_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Returns the reason for a socket/TLS error; `inTls` marks errors raised during the TLS handshake. */
export function reasonForSocketError(err: NodeJS.ErrnoException, inTls: boolean): ProbeReason {
  const code = err.code ?? "";
  if (code === "ECONNREFUSED") return "ConnectionRefused";
  if (code === "ECONNRESET" || code === "EPIPE") return inTls ? "TLSError" : "ConnectionReset";
  if (code === "ETIMEDOUT") return "Timeout";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "DNSError";
  if (TLS_CERT_CODES.has(code) || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))
    return "TLSError";
  return inTls ? "TLSError" : "Error";
}

/** Formats an error for a probe message: "ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:80". */
export function describeError(err: NodeJS.ErrnoException): string {
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
}
