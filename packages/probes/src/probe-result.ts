/**
 * The outcome of one probe and the options every probe takes. A probe never throws for a failing target: the
 * failure is data with a reason code from this package's own closed set, `ProbeReason`.
 */
import { PROBE_FAILURE_REASON_SOURCES, PROBE_FAILURE_REASONS } from "@swh/crd-types";
import type { MonotonicClock } from "./clock.js";

type Sources = typeof PROBE_FAILURE_REASON_SOURCES;
/**
 * Why a probe of this package fails: what a prober can observe of a target, and nothing about who runs it (a
 * caller with its own reasons, such as the agent's missing credentials, widens `ProbeResult`'s `Reason`). The
 * reasons of source `probe` in `@swh/crd-types`' catalogue. Stable strings, shown to users.
 */
export type ProbeReason = { [R in keyof Sources]: Sources[R] extends "probe" ? R : never }[keyof Sources];

/**
 * Every `ProbeReason`, in the catalogue's order: derived from `@swh/crd-types`' `PROBE_FAILURE_REASON_SOURCES`, so
 * a reason the engine may report is added there, once, with its troubleshooting entry.
 */
export const PROBE_REASONS: readonly ProbeReason[] = PROBE_FAILURE_REASONS.filter(
  (reason): reason is ProbeReason => PROBE_FAILURE_REASON_SOURCES[reason] === "probe",
);

/**
 * The result of one probe: `ok`, a reason code when not ok, a human-readable message and the time it took.
 * `Reason` is `ProbeReason` for this package's probes; a caller that adds failures of its own widens it.
 */
export interface ProbeResult<Reason extends string = ProbeReason> {
  ok: boolean;
  reason?: Reason;
  message: string;
  durationMs: number;
  /** When the probe reached each phase; only when `ProbeOptions.timings` asked for it. */
  timings?: ProbePhaseTimings;
}

/**
 * When a probe reached each phase, in ms since it started — cumulative, as curl's `-w` times are — measured as the
 * events happen, on the probe's clock. A phase the probe never reached, or that its kind does not have (TLS of a
 * plain connection, the answer of a connect-only TCP probe), is absent.
 */
export interface ProbePhaseTimings {
  /** The TCP connection was open. */
  connectMs?: number;
  /** The TLS handshake was complete (HTTPS, gRPC with `tls`, PostgreSQL with TLS). */
  tlsMs?: number;
  /**
   * The first byte of the answer to the probe's question arrived: of the HTTP response, of the TCP answer to
   * `send` / `expect`, of the PostgreSQL query's answer; the response headers of the gRPC call.
   */
  firstByteMs?: number;
  /** The probe ended: `durationMs`. */
  totalMs: number;
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
  /** Measure when each phase was reached, into `result.timings` (for `swh-probe -v`); off, it costs nothing. */
  timings?: boolean;
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
