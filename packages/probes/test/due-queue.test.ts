import { describe, expect, it } from "vitest";
import { DueQueue } from "../src/internal/due-queue.js";

interface Item {
  at: number;
  seq: number;
  name: string;
}
const item = (at: number, name: string): Item => ({ at, seq: 0, name });

function drain(q: DueQueue<Item>): string[] {
  const out: string[] = [];
  for (let next = q.pop(); next; next = q.pop()) out.push(next.name);
  return out;
}

describe("DueQueue", () => {
  it("returns items earliest first, and items due together in insertion order", () => {
    const q = new DueQueue<Item>();
    for (const [at, name] of [
      [30, "d"],
      [10, "a"],
      [20, "b"],
      [20, "c"],
      [5, "first"],
    ] as const)
      q.push(item(at, name));
    expect(q.peek()?.name).toBe("first");
    expect(q.size).toBe(5);
    expect(drain(q)).toEqual(["first", "a", "b", "c", "d"]);
    expect(q.pop()).toBeUndefined();
  });

  it("orders thousands of random times like a sort does", () => {
    const q = new DueQueue<Item>();
    const times = Array.from({ length: 5000 }, (_, i) => ({ at: (i * 7919) % 1009, name: String(i) }));
    for (const t of times) q.push(item(t.at, t.name));
    const expected = [...times].sort((a, b) => a.at - b.at || Number(a.name) - Number(b.name));
    expect(drain(q)).toEqual(expected.map((t) => t.name));
  });

  it("takes items back after a pop, as the scheduler re-queues a target's next slot", () => {
    const q = new DueQueue<Item>();
    q.push(item(0, "a"));
    q.push(item(0, "b"));
    const a = q.pop() as Item;
    a.at = 1000;
    q.push(a);
    expect(drain(q)).toEqual(["b", "a"]);
    q.push(item(1, "x"));
    q.clear();
    expect(q.size).toBe(0);
  });
});
