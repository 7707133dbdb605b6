import { describe, expect, it } from "vitest";
import { mergePatch, sameJson } from "../src/index.js";

describe("mergePatch", () => {
  it("nulls keys that disappeared and replaces arrays whole", () => {
    expect(
      mergePatch(
        { a: 1, lb: { ingress: [{ ip: "x" }] }, list: [1, 2], keep: { x: 1, y: 2 } },
        { a: 2, list: [3], keep: { x: 1 } },
      ),
    ).toEqual({ a: 2, lb: null, list: [3], keep: { x: 1, y: null } });
  });
});

describe("sameJson", () => {
  it("treats absent, empty and null as equal but not false or 0", () => {
    expect(sameJson({ a: [], b: undefined, c: {}, d: null }, {})).toBe(true);
    expect(sameJson({ a: false }, {})).toBe(false);
    expect(sameJson({ x: 1, y: 2 }, { y: 2, x: 1 })).toBe(true);
  });
});
