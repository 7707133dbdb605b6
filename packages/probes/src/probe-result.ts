/**
 * The outcome of one probe and the options every probe takes. A probe never throws for a failing target: the
 * failure is data with a reason code from the closed set shared with slices and status.
 */
import type { ProbeFailureReason } from "@swh/crd-types";
import type { MonotonicClock } from "./clock.js";

/** Why a probe failed: the closed set `ProbeFailureReason` of `@swh/crd-types`. */
export type ProbeReason = ProbeFailureReason;

/** The result of one probe: `ok`, a reason code when not ok, a human-readable message and the time it took. */
export interface ProbeResult {
  ok: boolean;
  reason?: ProbeReason;
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

/** The address a probe connects to: an IP literal (never a name: connections go only to pod addresses). */
export interface ProbeAddress {
  host: string;
  port: number;
}

/** Thrown when a probe's configuration is invalid, before anything is tried; the message names the field. */
export class ProbeConfigError extends Error {
  override readonly name = "ProbeConfigError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}
