/**
 * Leadership terms (ADR 0009 decision 7, ADR 0019): the work a leader does, run once per term, each term with its
 * own signal. Without an elector (`--leader-elect=false`) there is one term at once, for as long as the process
 * runs; with one (`runLeaderElection` with its options bound), one term per Lease held, its signal aborted the
 * moment the Lease is lost. After a loss the process stays a candidate; `end` runs after each term's loss (also
 * while its work is still finishing) and once more at the very end, so what only a leader shows is cleared.
 */
import type { Logger } from "./logger.js";

/** Runs `onStartedLeading` while this process holds the leader Lease (`runLeaderElection`'s hooks). */
export type LeaderElector = (opts: {
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading(): void;
  signal: AbortSignal;
}) => Promise<void>;

/**
 * Runs terms until `opts.signal` aborts and every term's work has finished (see the file comment). `start` runs a
 * term's work until the term's signal aborts; a term whose work fails is logged ("workers failed"), and the
 * process stays a candidate.
 */
export async function runLeaderTerms(
  elect: LeaderElector | undefined,
  opts: { signal: AbortSignal; logger: Logger },
  hooks: { start(signal: AbortSignal): Promise<void>; end(): void },
): Promise<void> {
  const { signal, logger } = opts;
  if (elect === undefined) {
    await hooks.start(signal);
    hooks.end();
    return;
  }
  const running = new Set<Promise<void>>();
  await elect({
    signal,
    onStartedLeading: (termSignal) => {
      logger.info("started leading");
      const work = hooks.start(termSignal).catch((err: unknown) => logger.error("workers failed", { err }));
      running.add(work);
      void work.finally(() => running.delete(work));
    },
    onStoppedLeading: () => {
      if (!signal.aborted) logger.warn("lost leadership; all work stopped");
      hooks.end();
    },
  });
  await Promise.all(running);
  hooks.end();
}
