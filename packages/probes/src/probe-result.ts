/**
 * The outcome of one probe and the options every probe takes. A probe never throws for a failing target: the
 * failure is data with a reason code from this package's own closed set, `ProbeReason`.
 */
import type { MonotonicClock } from "./clock.js";

/**
 * Every reason a probe of this package fails for: what a prober can observe of a target, and nothing about who
 * runs it (a caller with its own reasons, such as the agent's missing credentials, widens `ProbeResult`'s
 * `Reason`). Stable strings, shown to users.
 */
export const PROBE_REASONS = [
  "ConnectionRefused",
  "ConnectionReset",
  "Timeout",
  "HTTPStatus",
  "HTTPBody",
  "TLSError",
  "AuthFailed",
  "QueryFalse",
  "QueryError",
  "GRPCNotServing",
  "GRPCServiceUnknown",
  "GRPCStatusUnknown",
  "GRPCUnimplemented",
  "GRPCError",
  "ProtocolError",
  "DNSError",
  "UnsupportedMode",
  "Error",
] as const;

/** Why a probe failed: one of `PROBE_REASONS`. */
export type ProbeReason = (typeof PROBE_REASONS)[number];

/**
 * The result of one probe: `ok`, a reason code when not ok, a human-readable message and the time it took.
 * `Reason` is `ProbeReason` for this package's probes; a caller that adds failures of its own widens it.
 */
export interface ProbeResult<Reason extends string = ProbeReason> {
  ok: boolean;
  reason?: Reason;
  message: string;
  durationMs: number;
}

/**
 * Options of one probe: `timeoutMs` is a hard deadline over every phase; `signal` cancels the probe early;
 * `clock` (default `monotonicClock`) runs the deadline and measures `durationMs`, so a test can decide when the
 * deadline passes instead of racing it.
 */
export interface ProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  clock?: MonotonicClock;
}

/** The address a probe connects to: an IP literal, never a name (connections go only to the address given). */
export interface ProbeAddress {
  host: string;
  port: number;
}

/** Thrown when a probe's configuration is invalid, before anything is tried; the message names the field. */
export class ProbeConfigError extends Error {
  override readonly name = "ProbeConfigError";
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}
