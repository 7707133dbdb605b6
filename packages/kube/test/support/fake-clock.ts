import type { Clock, TimerHandle } from "../../src/index.js";

/** A clock whose time moves only when the test calls `advance`; due timers fire in order. */
export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete((handle as { id: number }).id);
  }

  /** Delays of the timers now pending, relative to now, sorted. */
  pendingDelays(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at);
      const first = due[0];
      if (first === undefined) break;
      this.#timers.delete(first[0]);
      this.#now = first[1].at;
      first[1].fn();
    }
    this.#now = target;
  }
}

/** Lets queued promise callbacks run (no timers involved). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
