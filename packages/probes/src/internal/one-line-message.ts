/**
 * A probe message as one short line, for `swh-probe`'s output (ADR 0042). Node passes OpenSSL's error text through
 * as it comes — `405D…:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/
 * openssl/ssl/record/methods/tlsany_meth.c:77:` and a line end, one line per queued error — which breaks a
 * line-per-result output and says little a user can act on. Pure.
 */

/**
 * One OpenSSL error entry: `[thread:]error:code:library:function:reason[:file:line:data]`; the reason (what went
 * wrong) and the data (such as `SSL alert number 42`) are kept, the rest is where in OpenSSL's source it was found.
 */
const OPENSSL_ERROR = /(?:[0-9A-F]+:)?error:[0-9A-F]{8}:[^:\n]*:[^:\n]*:([^:\n]+)(?::[^:\n]*:\d+:([^\n]*))?/g;

/** Node's advice for its own users after a certificate error; the CLI's own flag for it is `--ca`. */
const NODE_SYSTEM_CA_HINT =
  /; if the root CA is installed locally, try running Node\.js with --use-system-ca/g;

/**
 * `message` on one line: each OpenSSL error entry reduced to its reason (and data), Node's `--use-system-ca` advice
 * dropped, lines joined with "; ", other control characters made spaces. A message that is already one plain line
 * is returned as it is.
 */
export function oneLineMessage(message: string): string {
  return message
    .replace(OPENSSL_ERROR, (_entry, reason: string, data: string | undefined) =>
      data ? `${reason} (${data})` : reason,
    )
    .replace(NODE_SYSTEM_CA_HINT, "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/\p{Cc}/gu, " ").trim())
    .filter((line) => line !== "")
    .join("; ");
}
