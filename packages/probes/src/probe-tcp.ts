/** TCP probe: open a connection to the address and close it; nothing is written to the application. */
import { connect } from "node:net";
import { runAttempt } from "./internal/attempt.js";
import { checkAddress, formatAddress } from "./internal/check-address.js";
import { describeError, reasonForSocketError } from "./internal/socket-errors.js";
import type { ProbeAddress, ProbeOptions, ProbeResult } from "./probe-result.js";

/**
 * Connects to `target` and succeeds when the TCP handshake completes within `opts.timeoutMs`. Never throws
 * for a failing target; throws `ProbeConfigError` for an address that is not an IP literal and port.
 */
export function probeTcp(target: ProbeAddress, opts: ProbeOptions): Promise<ProbeResult> {
  checkAddress(target);
  return runAttempt(opts, (attempt) => {
    attempt.phase("connecting");
    const socket = connect({ host: target.host, port: target.port });
    socket.once("connect", () => attempt.finish(true, `connected to ${formatAddress(target)}`));
    socket.once("error", (err) =>
      attempt.finish(false, describeError(err), reasonForSocketError(err, false)),
    );
    return () => socket.destroy();
  });
}
