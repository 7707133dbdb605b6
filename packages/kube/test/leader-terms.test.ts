import { describe, expect, it } from "vitest";
import { type LeaderElector, runLeaderTerms } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

/** An elector the test drives: `win()` starts a term, `lose()` ends it, `stop()` ends the campaign. */
function anElector() {
  let hooks: Parameters<LeaderElector>[0] | undefined;
  let term: AbortController | undefined;
  let endCampaign!: () => void;
  const elect: LeaderElector = (h) => {
    hooks = h;
    return new Promise<void>((resolve) => {
      endCampaign = resolve;
    });
  };
  return {
    elect,
    win: () => {
      term = new AbortController();
      hooks?.onStartedLeading(term.signal);
    },
    lose: () => {
      term?.abort();
      hooks?.onStoppedLeading();
    },
    stop: () => endCampaign(),
  };
}

/** A term's work: runs until its signal aborts; records each start and end. */
function work(log: string[]) {
  const signals: AbortSignal[] = [];
  return {
    signals,
    hooks: {
      start: (signal: AbortSignal) => {
        signals.push(signal);
        log.push(`start ${signals.length}`);
        return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      },
      end: () => log.push("end"),
    },
  };
}

describe("runLeaderTerms", () => {
  it("without an elector runs one term at once, on the process's signal, and ends it once", async () => {
    const log: string[] = [];
    const stop = new AbortController();
    const { signals, hooks } = work(log);
    const done = runLeaderTerms(undefined, { signal: stop.signal, logger: memoryLogger() }, hooks);
    expect(signals).toEqual([stop.signal]);
    stop.abort();
    await done;
    expect(log).toEqual(["start 1", "end"]);
  });

  it("runs one term per Lease held, each with its own signal aborted when the Lease is lost", async () => {
    const log: string[] = [];
    const stop = new AbortController();
    const elector = anElector();
    const { signals, hooks } = work(log);
    const logger = memoryLogger();
    const done = runLeaderTerms(elector.elect, { signal: stop.signal, logger }, hooks);
    elector.win();
    elector.lose();
    expect(signals[0]?.aborted).toBe(true);
    elector.win();
    expect(signals).toHaveLength(2);
    expect(signals[1]?.aborted).toBe(false);
    stop.abort();
    elector.lose();
    elector.stop();
    await done;
    expect(log).toEqual(["start 1", "end", "start 2", "end", "end"]);
    const messages = logger.lines.map((l) => l.msg);
    // Only the loss while the process runs is a warning; the shutdown's is not.
    expect(messages.filter((m) => m === "lost leadership; all work stopped")).toHaveLength(1);
    expect(messages.filter((m) => m === "started leading")).toHaveLength(2);
  });

  it("waits for a lost term's work to finish, and logs a term whose work fails without giving up", async () => {
    const stop = new AbortController();
    const elector = anElector();
    const logger = memoryLogger();
    let finish!: () => void;
    let starts = 0;
    const done = runLeaderTerms(
      elector.elect,
      { signal: stop.signal, logger },
      {
        start: () => {
          starts++;
          if (starts === 1) return Promise.reject(new Error("boom"));
          return new Promise<void>((resolve) => {
            finish = resolve;
          });
        },
        end: () => {},
      },
    );
    elector.win();
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.lines.some((l) => l.msg === "workers failed")).toBe(true);
    elector.lose();
    elector.win();
    stop.abort();
    elector.lose();
    elector.stop();
    let settled = false;
    void done.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    finish();
    await done;
    expect(starts).toBe(2);
  });
});
