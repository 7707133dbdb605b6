/**
 * TCP probe: open a connection to the address and close it. By default nothing is written to the application;
 * with `send` the text is written once the connection opens, and with `expect` the server's answer must contain a
 * text within its first `MAX_TCP_ANSWER_BYTES` (HAProxy's `tcp-check send`/`expect`, NGINX `match`), e.g. Redis
 * `ROLE\r\n` → `master`. The connection is destroyed as soon as the verdict is known: an endless or silent server
 * costs at most the bounded read or the deadline.
 */
import { connect } from "node:net";
import type { TcpProbeSpec } from "@swh/crd-types";
import { runAttempt } from "./internal/attempt.js";
import { checkAddress, formatAddress } from "./internal/check-address.js";
import { closeSocket } from "./internal/close-socket.js";
import { quoteText } from "./internal/quote-text.js";
import { describeError, reasonForSocketError } from "./internal/socket-errors.js";
import { type ProbeAddress, ProbeConfigError, type ProbeOptions, type ProbeResult } from "./probe-result.js";

/** TCP probe settings: the `tcp` sub-object of a probe spec without `targetPort`; every field optional. */
export type TcpProbeConfig = Omit<TcpProbeSpec, "targetPort">;

/** How much of the server's answer is read while looking for `expect`. */
export const MAX_TCP_ANSWER_BYTES = 4 * 1024;

/**
 * Connects to `target` and succeeds when the TCP handshake completes within `opts.timeoutMs` and, when
 * `config.expect` is set, the answer contains it (otherwise `TCPResponse`; a server that only stalls is a
 * `Timeout`). Never throws for a failing target; throws `ProbeConfigError` for an address that is not an IP literal
 * and port, or settings that could never pass. `probeTcp(target, opts)` (no settings) is the plain connect check.
 */
export function probeTcp(target: ProbeAddress, opts: ProbeOptions): Promise<ProbeResult>;
export function probeTcp(
  target: ProbeAddress,
  config: TcpProbeConfig,
  opts: ProbeOptions,
): Promise<ProbeResult>;
export function probeTcp(
  target: ProbeAddress,
  configOrOpts: TcpProbeConfig | ProbeOptions,
  maybeOpts?: ProbeOptions,
): Promise<ProbeResult> {
  const [config, opts] =
    maybeOpts === undefined
      ? [{}, configOrOpts as ProbeOptions]
      : [configOrOpts as TcpProbeConfig, maybeOpts];
  checkAddress(target);
  const send = textSetting("send", config.send);
  const expected = textSetting("expect", config.expect);
  if (expected !== undefined && expected.length > MAX_TCP_ANSWER_BYTES)
    throw new ProbeConfigError(
      "expect",
      `is longer than the ${MAX_TCP_ANSWER_BYTES} bytes read of the answer`,
    );
  const where = formatAddress(target);
  return runAttempt(opts, (attempt) => {
    attempt.phase("connecting");
    const socket = connect({ host: target.host, port: target.port });
    socket.once("connect", () => {
      attempt.reached("connect");
      if (send !== undefined) socket.write(send);
      if (expected === undefined) {
        attempt.finish(
          true,
          `connected to ${where}${send === undefined ? "" : ` and sent ${send.length} bytes`}`,
        );
        return;
      }
      attempt.phase("waiting for the answer");
    });
    if (expected !== undefined) {
      const answer = Buffer.allocUnsafe(MAX_TCP_ANSWER_BYTES);
      let length = 0;
      const want = quoteText(config.expect ?? "");
      socket.on("data", (chunk: Buffer) => {
        if (attempt.done) return;
        attempt.reached("firstByte");
        const copied = chunk.copy(answer, length);
        length += copied;
        // Searched from where a match ending in this chunk could start, so no byte is searched again and again.
        const from = Math.max(0, length - copied - expected.length + 1);
        if (answer.subarray(0, length).includes(expected, from)) {
          attempt.finish(true, `the answer of ${where} contains ${want}`);
        } else if (length === MAX_TCP_ANSWER_BYTES) {
          attempt.finish(
            false,
            `the first ${length} bytes of the answer do not contain ${want}`,
            "TCPResponse",
          );
        } else attempt.phase(`reading the answer (${length} bytes so far)`);
      });
      socket.once("end", () => {
        attempt.finish(
          false,
          `the server closed the connection after ${length} bytes without ${want}`,
          "TCPResponse",
        );
      });
    }
    socket.once("error", (err) =>
      attempt.finish(false, describeError(err), reasonForSocketError(err, false)),
    );
    return () => closeSocket(socket);
  });
}

/** A text setting as UTF-8 bytes (undefined when not set); an empty text could never mean anything. */
function textSetting(field: string, value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "")
    throw new ProbeConfigError(field, "must be a non-empty string");
  return Buffer.from(value, "utf8");
}
