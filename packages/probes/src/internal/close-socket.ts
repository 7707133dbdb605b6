/**
 * How a probe lets go of its connection once the verdict is known: a connected plain TCP socket is reset (RST),
 * a socket still connecting or a TLS socket is destroyed (FIN). A reset, as HAProxy ends its TCP checks, leaves no
 * TIME_WAIT on either side: with a FIN every check kept one on the node for 60 s, about 60 per target at a 1 s
 * period, enough to fill the kernel's table at a few thousand targets. It is no cheaper in CPU (ADR 0044).
 * Node's `resetAndDestroy()` on a socket still connecting would wait for the connection instead of ending it,
 * hence `destroy()` there.
 */
import { Socket } from "node:net";
import { TLSSocket } from "node:tls";

/** Ends `socket` at once, with a reset when it is a connected plain TCP socket; see the file comment. */
export function closeSocket(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket instanceof TLSSocket || socket.connecting || !(socket instanceof Socket)) socket.destroy();
  else socket.resetAndDestroy();
}
