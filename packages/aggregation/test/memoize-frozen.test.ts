import { describe, expect, it } from "vitest";
import { memoizeFrozen } from "../src/internal/memoize-frozen.js";

describe("memoizeFrozen", () => {
  it("computes once per frozen object and every time for objects that may still change", () => {
    let calls = 0;
    const size = memoizeFrozen((obj: { items: string[] }) => {
      calls++;
      return obj.items.length;
    });
    const frozen = Object.freeze({ items: ["a", "b"] });
    expect([size(frozen), size(frozen)]).toEqual([2, 2]);
    expect(calls).toBe(1);
    const open = { items: ["a"] };
    expect(size(open)).toBe(1);
    open.items.push("b");
    expect(size(open)).toBe(2);
    expect(calls).toBe(3);
    // A new version of an object (informers replace, never change) is a new key.
    expect(size(Object.freeze({ items: [] }))).toBe(0);
    expect(calls).toBe(4);
  });

  it("remembers undefined results too", () => {
    let calls = 0;
    const nothing = memoizeFrozen((_obj: object) => {
      calls++;
      return undefined;
    });
    const frozen = Object.freeze({});
    nothing(frozen);
    nothing(frozen);
    expect(calls).toBe(1);
  });
});
