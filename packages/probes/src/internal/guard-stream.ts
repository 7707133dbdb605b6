/**
 * Protects the process from a hostile PostgreSQL server. pg's protocol parser throws from inside the socket's
 * 'data' listener on malformed messages (an uncaught exception that would crash the agent), and buffers a
 * message of any declared length until it is complete (memory bounded only by bandwidth × timeout). pg offers
 * no hook for either, so the probe guards the sockets it owns: a listener that throws destroys the socket with
 * that error instead, and more than `maxBytes` received destroys it with a `ProtocolError`.
 */
import type { Duplex } from "node:stream";

/** Error code of the "too many bytes" destroy, mapped to `ProtocolError` by the probe. */
export const RESPONSE_TOO_LARGE = "SWH_RESPONSE_TOO_LARGE";
/** Error code of a protocol parser failure caught by the guard, mapped to `ProtocolError`. */
export const PROTOCOL_PARSE_FAILED = "SWH_PROTOCOL_PARSE_FAILED";

/** Wraps `stream.emit` of this one stream instance (idempotent); see the file comment for why. */
export function guardStream(stream: Duplex, maxBytes: number): void {
  const marked = stream as Duplex & { swhGuarded?: boolean };
  if (marked.swhGuarded) return;
  marked.swhGuarded = true;
  let received = 0;
  const emit = stream.emit;
  stream.emit = function guardedEmit(this: Duplex, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "data") {
      received += (args[0] as Buffer).length;
      if (received > maxBytes) {
        this.destroy(
          Object.assign(new Error(`server sent more than ${maxBytes} bytes`), { code: RESPONSE_TOO_LARGE }),
        );
        return true;
      }
    }
    try {
      return emit.call(this, event, ...args);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.destroy(
        Object.assign(new Error(`malformed server response: ${message}`), { code: PROTOCOL_PARSE_FAILED }),
      );
      return true;
    }
  } as typeof stream.emit;
}
