import { describe, expect, it } from "vitest";
import { TtlCache } from "../src/index.js";
import { FakeClock } from "./support/fake-clock.js";

describe("TtlCache", () => {
  it("returns a value until its TTL has passed, then forgets it", () => {
    const clock = new FakeClock();
    const cache = new TtlCache<string, string>({ maxEntries: 10, clock });
    cache.set("a", "allowed", 30_000);
    clock.advance(29_999);
    expect(cache.get("a")).toBe("allowed");
    clock.advance(1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps at most maxEntries, dropping the oldest first", () => {
    const cache = new TtlCache<number, number>({ maxEntries: 3, clock: new FakeClock() });
    for (let i = 0; i < 1000; i++) cache.set(i, i, 60_000);
    expect(cache.size).toBe(3);
    expect([cache.get(996), cache.get(997), cache.get(998), cache.get(999)]).toEqual([
      undefined,
      997,
      998,
      999,
    ]);
  });

  it("re-setting a key renews its TTL and its place", () => {
    const clock = new FakeClock();
    const cache = new TtlCache<string, number>({ maxEntries: 2, clock });
    cache.set("a", 1, 10_000);
    cache.set("b", 2, 10_000);
    clock.advance(5_000);
    cache.set("a", 3, 10_000);
    cache.set("c", 4, 10_000); // evicts b, now the oldest
    expect(cache.get("b")).toBeUndefined();
    clock.advance(9_999);
    expect(cache.get("a")).toBe(3);
  });

  it("stores nothing for a TTL of zero, and refuses a bound below one", () => {
    const cache = new TtlCache<string, number>({ maxEntries: 1, clock: new FakeClock() });
    cache.set("a", 1, 0);
    expect(cache.get("a")).toBeUndefined();
    expect(() => new TtlCache({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
