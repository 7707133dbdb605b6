import { describe, expect, it } from "vitest";
import { isTruthyQueryValue } from "../src/internal/query-truthiness.js";

describe("isTruthyQueryValue (SPEC §2.2)", () => {
  it.each([true, 1, 1n, "t", "true", "TRUE", "y", "yes", "Yes", "on", "1"])("%s is true", (v) => {
    expect(isTruthyQueryValue(v)).toBe(true);
  });
  it.each([false, 0, 2, 0n, "f", "false", "0", "no", "off", "", "11", null, undefined, {}])(
    "%s is false",
    (v) => {
      expect(isTruthyQueryValue(v)).toBe(false);
    },
  );
});
