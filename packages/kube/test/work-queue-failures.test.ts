import { Writable } from "node:stream";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  createKubeMetrics,
  createLogger,
  DEFAULT_MAX_RETRIES,
  type DroppedKey,
  TerminalError,
  type WorkContext,
  WorkQueue,
  WorkTimeoutError,
} from "../src/index.js";
import { FakeClock, settle } from "./support/fake-clock.js";

/** A queue on a fake clock whose drops, metrics and log lines the test reads. */
function harness(opts: { maxRetries?: number; timeoutMs?: number } = {}) {
  const clock = new FakeClock();
  const registry = new Registry();
  const metrics = createKubeMetrics(registry);
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const dropped: DroppedKey<string>[] = [];
  const q = new WorkQueue<string>({
    name: "test",
    clock,
    metrics,
    logger: createLogger({ stream, level: "debug" }),
    onDropped: (d) => {
      dropped.push(d);
    },
    ...opts,
  });
  const counter = async (name: string, labels: Record<string, string>) => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return value?.value ?? 0;
  };
  return { clock, q, dropped, lines, counter };
}

/** Advances the fake clock through each pending delay until none is left (at most `max` steps). */
async function drain(clock: FakeClock, max = 100): Promise<number> {
  let steps = 0;
  for (; steps < max; steps++) {
    await settle();
    const [delay] = clock.pendingDelays();
    if (delay === undefined) break;
    clock.advance(delay);
  }
  await settle();
  return steps;
}

describe("WorkQueue failures", () => {
  it("does not retry a key whose worker throws a TerminalError, and reports it once", async () => {
    const { clock, q, dropped, counter, lines } = harness();
    let runs = 0;
    const stop = new AbortController();
    const done = q.run(
      async () => {
        runs++;
        throw new TerminalError("spec.ports[0].port: not a number");
      },
      { concurrency: 1, signal: stop.signal },
    );
    q.add("ns/bad");
    await drain(clock);
    expect(runs).toBe(1);
    expect(clock.pendingDelays()).toEqual([]);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ key: "ns/bad", kind: "terminal", failures: 1 });
    expect(dropped[0]?.error).toBeInstanceOf(TerminalError);
    expect(await counter("swh_workqueue_dropped_total", { queue: "test", kind: "terminal" })).toBe(1);
    expect(await counter("swh_workqueue_retries_total", { queue: "test" })).toBe(0);
    expect(lines.filter((l) => l.level !== "debug")).toEqual([]); // the worker reports the object problem
    expect(lines.find((l) => String(l.msg).startsWith("work item cannot succeed"))).toMatchObject({
      item: "ns/bad",
      err: { name: "TerminalError", message: "spec.ports[0].port: not a number" },
    });
    // An event adds it again: it runs again.
    q.add("ns/bad");
    await drain(clock);
    expect(runs).toBe(2);
    stop.abort();
    await done;
  });

  it("stops retrying after maxRetries and reports the last error; the next event starts afresh", async () => {
    const { clock, q, dropped, counter } = harness({ maxRetries: 3 });
    let runs = 0;
    const stop = new AbortController();
    const done = q.run(
      async () => {
        runs++;
        throw new Error(`attempt ${runs} failed`);
      },
      { concurrency: 1, signal: stop.signal },
    );
    q.add("k");
    await drain(clock);
    expect(runs).toBe(4); // the first run and 3 retries
    expect(clock.pendingDelays()).toEqual([]);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ key: "k", kind: "retry_limit", failures: 4 });
    expect(dropped[0]?.error).toEqual(new Error("attempt 4 failed"));
    expect(q.failures("k")).toBe(0);
    expect(await counter("swh_workqueue_dropped_total", { queue: "test", kind: "retry_limit" })).toBe(1);
    expect(await counter("swh_workqueue_retries_total", { queue: "test" })).toBe(3);
    // The next event gets the full budget again, starting at the first backoff step.
    q.add("k");
    await settle();
    expect(clock.pendingDelays()).toEqual([5]);
    await drain(clock);
    expect(runs).toBe(8);
    expect(dropped).toHaveLength(2);
    stop.abort();
    await done;
  });

  it("a success after failures resets the count: no drop, no report", async () => {
    const { clock, q, dropped } = harness({ maxRetries: 3 });
    let runs = 0;
    const contexts: WorkContext[] = [];
    const stop = new AbortController();
    const done = q.run(
      async (_key, ctx) => {
        contexts.push(ctx);
        runs++;
        if (runs % 3 !== 0) throw new Error("flaky"); // fails twice, then succeeds
      },
      { concurrency: 1, signal: stop.signal },
    );
    for (let i = 0; i < 4; i++) {
      q.add("k");
      await drain(clock);
    }
    expect(runs).toBe(12);
    expect(dropped).toEqual([]);
    expect(contexts.map((c) => c.failures)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    stop.abort();
    await done;
  });

  it("aborts the worker's signal at the deadline and counts the run as failed with a timeout", async () => {
    const { clock, q, dropped, counter, lines } = harness({ timeoutMs: 30_000, maxRetries: 0 });
    const signals: AbortSignal[] = [];
    const stop = new AbortController();
    const done = q.run(
      (_key, ctx) =>
        new Promise<void>((_resolve, reject) => {
          signals.push(ctx.signal);
          // A worker that honours its signal, as the apps' API calls do.
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        }),
      { concurrency: 1, signal: stop.signal },
    );
    q.add("slow");
    await settle();
    expect(clock.pendingDelays()).toEqual([30_000]);
    clock.advance(29_999);
    await settle();
    expect(signals[0]?.aborted).toBe(false);
    clock.advance(1);
    await settle();
    expect(signals[0]?.aborted).toBe(true);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.error).toBeInstanceOf(WorkTimeoutError);
    expect(await counter("swh_workqueue_dropped_total", { queue: "test", kind: "retry_limit" })).toBe(1);
    expect(
      lines.find((l) => l.msg === "work item failed too often; dropped until it is added again"),
    ).toMatchObject({
      item: "slow",
      err: { name: "WorkTimeoutError" },
    });
    stop.abort();
    await done;
  });

  it("a timed-out run is retried with backoff like any failure", async () => {
    const { clock, q } = harness({ timeoutMs: 1000 });
    let runs = 0;
    const stop = new AbortController();
    const done = q.run(
      (_key, ctx) =>
        new Promise<void>((resolve, reject) => {
          runs++;
          if (runs > 1) return resolve();
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        }),
      { concurrency: 1, signal: stop.signal },
    );
    q.add("k");
    await settle();
    clock.advance(1000);
    await settle();
    expect(q.failures("k")).toBe(1);
    expect(clock.pendingDelays()).toEqual([5]);
    clock.advance(5);
    await settle();
    expect(runs).toBe(2);
    expect(q.failures("k")).toBe(0);
    stop.abort();
    await done;
  });

  it("the worker's signal also aborts when the queue stops", async () => {
    const { q } = harness();
    let signal: AbortSignal | undefined;
    const stop = new AbortController();
    const done = q.run(
      (_key, ctx) =>
        new Promise<void>((resolve) => {
          signal = ctx.signal;
          ctx.signal.addEventListener("abort", () => resolve(), { once: true });
        }),
      { concurrency: 1, signal: stop.signal },
    );
    q.add("k");
    await settle();
    expect(signal?.aborted).toBe(false);
    stop.abort();
    await done;
    expect(signal?.aborted).toBe(true);
  });

  it("puts one reconcileID per run on every line the worker and the queue log for that run", async () => {
    const { clock, q, lines } = harness();
    let runs = 0;
    const stop = new AbortController();
    const done = q.run(
      async (_key, ctx) => {
        runs++;
        ctx.logger.info("reading state");
        ctx.logger.child({ swh: "ns/a" }).info("writing");
        if (runs === 1) throw new Error("boom");
      },
      { concurrency: 1, signal: stop.signal },
    );
    q.add("ns/a");
    await drain(clock);
    stop.abort();
    await done;
    expect(lines.map((l) => l.msg)).toEqual([
      "reading state",
      "writing",
      "work item failed; retrying with backoff",
      "reading state",
      "writing",
    ]);
    for (const line of lines) expect(line).toMatchObject({ queue: "test", item: "ns/a" });
    const ids = lines.map((l) => l.reconcileID);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}$/);
    expect(ids.slice(0, 3)).toEqual([ids[0], ids[0], ids[0]]);
    expect(ids.slice(3)).toEqual([ids[3], ids[3]]);
    expect(ids[3]).not.toBe(ids[0]);
  });

  it("a failing onDropped is logged and the queue keeps working", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({
      clock,
      onDropped: () => {
        throw new Error("status write failed");
      },
    });
    const runs: string[] = [];
    const stop = new AbortController();
    const done = q.run(
      async (key) => {
        runs.push(key);
        if (key === "bad") throw new TerminalError("no");
      },
      { concurrency: 1, signal: stop.signal },
    );
    q.add("bad");
    q.add("good");
    await drain(clock);
    expect(runs).toEqual(["bad", "good"]);
    stop.abort();
    await done;
  });

  it("rejects a negative retry limit and a non-positive timeout, naming the option", () => {
    expect(() => new WorkQueue({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new WorkQueue({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(DEFAULT_MAX_RETRIES).toBe(15);
  });
});
