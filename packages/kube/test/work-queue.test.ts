import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WorkQueue } from "../src/index.js";
import { FakeClock, settle } from "./support/fake-clock.js";

/** A worker whose calls the test completes by hand, recording what ran and what overlapped. */
function controlledWorker() {
  const running = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  const started: string[] = [];
  let overlap = false;
  const worker = (key: string) =>
    new Promise<void>((resolve, reject) => {
      if (running.has(key)) overlap = true;
      started.push(key);
      running.set(key, {
        resolve: () => {
          running.delete(key);
          resolve();
        },
        reject: (e) => {
          running.delete(key);
          reject(e);
        },
      });
    });
  return { worker, running, started, overlapped: () => overlap };
}

describe("WorkQueue", () => {
  it("holds a waiting key once however often it is added", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add("a");
    q.add("b");
    q.add("a");
    q.add("a");
    expect(q.length).toBe(2);
    const w = controlledWorker();
    const stop = new AbortController();
    const done = q.run(w.worker, { concurrency: 4, signal: stop.signal });
    await settle();
    expect(w.started.sort()).toEqual(["a", "b"]);
    for (const c of [...w.running.values()]) c.resolve();
    stop.abort();
    await done;
    expect(w.started).toHaveLength(2);
  });

  it("never runs one key twice at once and re-runs a key added while it ran", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const w = controlledWorker();
    const stop = new AbortController();
    const done = q.run(w.worker, { concurrency: 3, signal: stop.signal });
    q.add("a");
    await settle();
    expect(w.started).toEqual(["a"]);
    q.add("a");
    q.add("a");
    await settle();
    expect(w.started).toEqual(["a"]); // still running: not started again
    w.running.get("a")?.resolve();
    await settle();
    expect(w.started).toEqual(["a", "a"]); // once more, not twice more
    w.running.get("a")?.resolve();
    await settle();
    expect(w.started).toEqual(["a", "a"]);
    stop.abort();
    await done;
    expect(w.overlapped()).toBe(false);
  });

  it("retries a failing key with doubling delays capped at 60 s, and resets after a success", async () => {
    const clock = new FakeClock();
    // Above the 20 failures below: this test is about the backoff, the limit has its own test.
    const q = new WorkQueue<string>({ clock, maxRetries: 25 });
    let failuresLeft = 20;
    const delays: number[] = [];
    const stop = new AbortController();
    const done = q.run(
      async () => {
        if (failuresLeft-- > 0) throw new Error("boom");
      },
      { concurrency: 1, signal: stop.signal },
    );
    q.add("k");
    for (let i = 0; i < 20; i++) {
      await settle();
      const [delay] = clock.pendingDelays();
      expect(delay).toBeDefined();
      delays.push(delay ?? 0);
      clock.advance(delay ?? 0);
    }
    await settle();
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(Math.max(...delays)).toBe(60_000);
    expect(delays.at(-1)).toBe(60_000);
    expect(q.failures("k")).toBe(0); // the 21st run succeeded
    expect(clock.pendingDelays()).toEqual([]);
    // After the success the next failure starts at 5 ms again.
    failuresLeft = 1;
    q.add("k");
    await settle();
    expect(clock.pendingDelays()).toEqual([5]);
    stop.abort();
    await done;
  });

  it("addAfter keeps the earliest pending delay for a key and requeueAfterMs schedules a re-run", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter("k", 1000);
    q.addAfter("k", 300);
    q.addAfter("k", 5000);
    expect(clock.pendingDelays()).toEqual([300]);
    expect(q.length).toBe(0);
    const runs: number[] = [];
    const stop = new AbortController();
    const done = q.run(
      async () => {
        runs.push(clock.now());
        return runs.length === 1 ? { requeueAfterMs: 2000 } : undefined;
      },
      { concurrency: 1, signal: stop.signal },
    );
    clock.advance(300);
    await settle();
    clock.advance(2000);
    await settle();
    expect(runs).toEqual([300, 2300]);
    stop.abort();
    await done;
  });

  it("run resolves after abort only once the running worker finished", async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    const w = controlledWorker();
    const stop = new AbortController();
    let finished = false;
    const done = q.run(w.worker, { concurrency: 2, signal: stop.signal }).then(() => {
      finished = true;
    });
    q.add("a");
    await settle();
    stop.abort();
    await settle();
    expect(finished).toBe(false);
    w.running.get("a")?.resolve();
    await done;
    expect(finished).toBe(true);
  });

  it("property: any sequence of adds runs each key, never two at once, nothing lost", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (adds, completions, concurrency) => {
          const q = new WorkQueue<string>({ clock: new FakeClock() });
          const w = controlledWorker();
          const stop = new AbortController();
          const done = q.run(w.worker, { concurrency, signal: stop.signal });
          const startsAfterAdd = new Map<string, number>();
          for (const key of adds) q.add(key);
          for (let i = 0; i < adds.length; i++) {
            await settle();
            // Complete a few running keys, then add the next key again (interleaving adds with runs).
            for (const c of [...w.running.values()].slice(0, completions[i % completions.length]))
              c.resolve();
            const key = adds[i];
            if (key !== undefined) {
              q.add(key);
              startsAfterAdd.set(key, w.started.length);
            }
          }
          // Drain.
          for (let i = 0; i < 200; i++) {
            await settle();
            if (w.running.size === 0 && q.length === 0) break;
            for (const c of [...w.running.values()]) c.resolve();
          }
          stop.abort();
          await done;
          expect(w.overlapped()).toBe(false);
          // Every key added was run at least once after its last add.
          for (const [key, index] of startsAfterAdd) {
            expect(w.started.slice(index)).toContain(key);
          }
          expect(new Set(w.started)).toEqual(new Set(adds));
        },
      ),
      { numRuns: 100 },
    );
    // A hundred runs of many event-loop turns each: seconds on a loaded CI runner, so not the default timeout.
  }, 120_000);
});
