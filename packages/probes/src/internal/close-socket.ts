/**
 * How a probe lets go of its connection once the verdict is known: a connected plain TCP socket is reset (RST),
 * a socket still connecting or a TLS socket is destroyed (FIN). The reset is HAProxy's way after a check: one
 * segment instead of a FIN exchange in both directions and no TIME_WAIT on either side, which is most of what a
 * check costs the kernel (ADR 0044). Node's `resetAndDestroy()` on a socket still connecting would wait for the
 * connection instead of ending it, hence `destroy()` there.
 */
import { Socket } from "node:net";
import { TLSSocket } from "node:tls";

/** Ends `socket` at once, with a reset when it is a connected plain TCP socket; see the file comment. */
export function closeSocket(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket instanceof TLSSocket || socket.connecting || !(socket instanceof Socket)) socket.destroy();
  else socket.resetAndDestroy();
}
