/** A `MonotonicClock` driven by the test: time moves only through `advance`, which fires due timers in order. */
import type { MonotonicClock, TimerHandle } from "../../src/index.js";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualClock implements MonotonicClock {
  #now = 0;
  #seq = 0;
  #timers = new Set<Timer>();

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.#now + ms, seq: this.#seq++, fn };
    this.#timers.add(timer);
    return timer;
  }
  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as Timer);
  }
  get pendingTimers(): number {
    return this.#timers.size;
  }
  /** Moves time forward by `ms`, firing every timer due on the way (and letting promise callbacks run). */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      const next = [...this.#timers]
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.#timers.delete(next);
      this.#now = next.at;
      next.fn();
      await flushMicrotasks();
    }
    this.#now = end;
    await flushMicrotasks();
  }
}

export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
