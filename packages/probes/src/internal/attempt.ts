/**
 * One probe attempt with a hard deadline: the single place where timeouts, cancellation and "resolve exactly
 * once" live, so each probe only describes its protocol.
 */
import { type MonotonicClock, monotonicClock } from "../clock.js";
import type { ProbeOptions, ProbeReason, ProbeResult } from "../probe-result.js";

/** A phase a probe reports reaching, for `ProbeOptions.timings`. */
type ProbePhase = "connect" | "tls" | "firstByte";

type PhaseMarks = { -readonly [P in ProbePhase as `${P}Ms`]?: number };

/** What a probe's protocol code sees of its attempt. */
export interface Attempt {
  /** Ends the attempt (first call wins); later calls are ignored. */
  finish(ok: boolean, message: string, reason?: ProbeReason): void;
  /** Names the phase in progress, used in the timeout message ("waiting for response headers"). */
  phase(name: string): void;
  /**
   * Records the first time `phase` is reached, when `ProbeOptions.timings` asked for it; without it a no-op, so
   * protocol code calls it unconditionally where the event happens.
   */
  reached(phase: ProbePhase): void;
  readonly done: boolean;
}

function ignorePhase(_phase: ProbePhase): void {}

/** Milliseconds on `clock` since `startedAt`, to 0.01 ms: `durationMs` and every phase timing. */
function elapsedMs(clock: MonotonicClock, startedAt: number): number {
  return Math.round((clock.now() - startedAt) * 100) / 100;
}

/**
 * Runs `start` and resolves with its outcome, or with `Timeout` at `timeoutMs` on `opts.clock`, or with `Error`
 * when `signal` aborts. `start` returns the teardown (destroy sockets) that runs exactly once, whatever ended the
 * attempt.
 */
export function runAttempt(
  opts: ProbeOptions,
  start: (attempt: Attempt) => () => void,
): Promise<ProbeResult> {
  const clock = opts.clock ?? monotonicClock;
  const startedAt = clock.now();
  return new Promise<ProbeResult>((resolve) => {
    let done = false;
    let phase = "connecting";
    let teardown: (() => void) | undefined;
    // Decided once per attempt: without `timings`, `reached` is a function that does nothing.
    const marks: PhaseMarks | undefined = opts.timings === true ? {} : undefined;
    const { signal } = opts;
    const onAbort = () => finish(false, `probe cancelled while ${phase}`, "Error");
    const timer = clock.setTimeout(
      () => finish(false, `timed out after ${opts.timeoutMs} ms while ${phase}`, "Timeout"),
      opts.timeoutMs,
    );
    function finish(ok: boolean, message: string, reason?: ProbeReason): void {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      teardown?.();
      const result: ProbeResult = { ok, message, durationMs: elapsedMs(clock, startedAt) };
      if (!ok) result.reason = reason ?? "Error";
      if (marks !== undefined) result.timings = { ...marks, totalMs: result.durationMs };
      resolve(result);
    }
    const attempt: Attempt = {
      finish,
      phase: (name) => {
        phase = name;
      },
      reached:
        marks === undefined
          ? ignorePhase
          : (reached) => {
              if (!done) marks[`${reached}Ms`] ??= elapsedMs(clock, startedAt);
            },
      get done() {
        return done;
      },
    };
    if (signal?.aborted) {
      finish(false, "probe cancelled before it started", "Error");
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const td = start(attempt);
      if (done) td();
      else teardown = td;
    } catch (err) {
      // Setup code threw synchronously (e.g. a socket option rejected by the OS): still a result, not a crash.
      finish(false, `could not start the probe: ${(err as Error).message}`, "Error");
    }
  });
}
