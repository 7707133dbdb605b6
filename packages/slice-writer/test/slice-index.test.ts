import { ANNOTATION_NODE_NAME, LABEL_NODE } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { SliceIndex } from "../src/index.js";
import { aSlice, deepFreeze } from "./slice-builders.js";

const names = (entries: { slice: { metadata?: { name?: string } } }[]) =>
  entries.map((e) => e.slice.metadata?.name).sort();

describe("SliceIndex", () => {
  it("finds slices by SWH and by node, and follows updates that move a slice", () => {
    const index = new SliceIndex();
    const a = aSlice({ name: "a", node: "n1", endpoints: [{ address: "10.244.0.1" }] });
    const b = aSlice({ name: "b", node: "n2", endpoints: [{ address: "10.244.0.2" }] });
    index.upsert(a);
    index.upsert(b);
    expect(names(index.forSwh("ns/web"))).toEqual(["a", "b"]);
    expect(names(index.forNode("n1"))).toEqual(["a"]);

    const moved = aSlice({ name: "a", node: "n2", endpoints: [{ address: "10.244.0.1" }] });
    index.upsert(moved);
    expect(index.forNode("n1")).toEqual([]);
    expect(names(index.forNode("n2"))).toEqual(["a", "b"]);
    expect(index.nodes()).toEqual(["n2"]);

    index.remove(b);
    index.remove(moved);
    expect(index.forSwh("ns/web")).toEqual([]);
    expect(index.nodes()).toEqual([]);
  });

  it.each([
    ["69", `worker-${"a".repeat(30)}.zone-b.cluster.example.internal`],
    ["253", [`${"b".repeat(63)}`, `${"c".repeat(63)}`, `${"d".repeat(63)}`, `${"e".repeat(61)}`].join(".")],
  ])(
    "indexes the slice of a node whose name has %s characters by that full name, not its node label",
    (_n, node) => {
      const index = new SliceIndex();
      const slice = aSlice({ node, endpoints: [{ address: "10.244.0.1" }] });
      expect(slice.metadata?.labels?.[LABEL_NODE]).not.toBe(node);
      index.upsert(slice);
      expect(index.nodes()).toEqual([node]);
      expect(index.forNode(node)).toHaveLength(1);
      expect(index.forNode(slice.metadata?.labels?.[LABEL_NODE] ?? "")).toEqual([]);
    },
  );

  it("forgets a slice that no longer reads as ours, and never indexes a malformed one", () => {
    const index = new SliceIndex();
    const slice = aSlice({ name: "a", node: "n1", endpoints: [{ address: "10.244.0.1" }] });
    index.upsert(slice);
    const stripped = deepFreeze({
      ...structuredClone(slice),
      metadata: { ...structuredClone(slice.metadata), annotations: { [ANNOTATION_NODE_NAME]: "" } },
      endpoints: [],
    });
    expect(index.upsert(stripped)).toBeUndefined();
    expect(index.nodes()).toEqual([]);
    expect(index.forSwh("ns/web")).toEqual([]);
  });
});
