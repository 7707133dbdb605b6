import { describe, expect, it } from "vitest";
import { shortHash } from "../src/internal.js";

describe("shortHash", () => {
  // Slice, label and Lease names already stored in clusters are made with it: a new release must cut them alike.
  it("is the first 10 hex digits of the SHA-256, the same in every release", () => {
    expect(shortHash("node-a")).toBe("66570ff05a");
  });

  it("tells names apart that differ only past any cut", () => {
    const base = "n".repeat(300);
    expect(shortHash(`${base}a`)).not.toBe(shortHash(`${base}b`));
  });
});
