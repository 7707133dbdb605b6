import { describe, expect, it } from "vitest";
import { SliceIndex } from "../src/slice-index.js";
import { aSlice } from "./builders.js";

describe("SliceIndex", () => {
  it("finds slices by SWH and by node, and follows updates that move a slice", () => {
    const index = new SliceIndex();
    const a = aSlice({ name: "a", node: "n1", endpoints: [{ address: "10.244.0.1" }] });
    const b = aSlice({ name: "b", node: "n2", endpoints: [{ address: "10.244.0.2" }] });
    index.upsert(a);
    index.upsert(b);
    expect(
      index
        .forSwh("ns/web")
        .map((s) => s.metadata?.name)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(index.forNode("n1").map((s) => s.metadata?.name)).toEqual(["a"]);

    const moved = aSlice({ name: "a", node: "n2", endpoints: [{ address: "10.244.0.1" }] });
    index.upsert(moved);
    expect(index.forNode("n1")).toEqual([]);
    expect(
      index
        .forNode("n2")
        .map((s) => s.metadata?.name)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(index.nodes()).toEqual(["n2"]);

    index.remove(b);
    index.remove(moved);
    expect(index.forSwh("ns/web")).toEqual([]);
    expect(index.nodes()).toEqual([]);
  });
});
