import { describe, expect, it } from "vitest";
import { objectKey, splitObjectKey } from "../src/object-key.js";

describe("objectKey / splitObjectKey", () => {
  it("keys a namespaced object namespace/name and reads it back", () => {
    expect(objectKey({ namespace: "shop", name: "web" })).toBe("shop/web");
    expect(splitObjectKey("shop/web")).toEqual({ namespace: "shop", name: "web" });
  });

  it("keys a cluster-scoped object by its name alone, whose namespace reads back empty", () => {
    expect(objectKey({ name: "node-a" })).toBe("node-a");
    expect(objectKey({ namespace: "", name: "node-a" })).toBe("node-a");
    expect(splitObjectKey("node-a")).toEqual({ namespace: "", name: "node-a" });
  });

  it("round-trips any valid pair, including a 253-character name", () => {
    const long = `n${"x".repeat(251)}z`;
    for (const ref of [
      { namespace: "a", name: long },
      { namespace: long.slice(0, 63), name: "b.c-d" },
    ]) {
      expect(splitObjectKey(objectKey(ref))).toEqual(ref);
    }
  });

  it("takes an object's metadata as it comes (missing fields are empty)", () => {
    expect(objectKey({})).toBe("");
    expect(objectKey({ namespace: "shop", name: undefined })).toBe("shop/");
  });
});
