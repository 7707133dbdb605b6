/** `oneLineMessage` on messages as Node 24 with OpenSSL 3 produced them for real TLS failures (see cli-scripts-well). */
import { describe, expect, it } from "vitest";
import { oneLineMessage } from "../src/internal/one-line-message.js";

const WRONG_VERSION =
  "405D51FDDB7F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:\n";
const ALERT =
  "407D052DD77F0000:error:0A000410:SSL routines:ssl3_read_bytes:ssl/tls alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 40\n";

describe("oneLineMessage", () => {
  it.each([
    [`ERR_SSL_WRONG_VERSION_NUMBER: ${WRONG_VERSION}`, "ERR_SSL_WRONG_VERSION_NUMBER: wrong version number"],
    [ALERT, "ssl/tls alert handshake failure (SSL alert number 40)"],
    [
      `${WRONG_VERSION}${ALERT}`,
      "wrong version number; ssl/tls alert handshake failure (SSL alert number 40)",
    ],
    ["error:0A00018F:SSL routines::ee key too small", "ee key too small"],
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca",
      "DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate",
    ],
    ["first line\r\n\tsecond line\n\n", "first line; second line"],
    [
      "HTTP 503 Service Unavailable is not an accepted status",
      "HTTP 503 Service Unavailable is not an accepted status",
    ],
  ])("%j → %j", (message, line) => expect(oneLineMessage(message)).toBe(line));
});
