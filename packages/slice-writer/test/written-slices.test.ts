import type { V1EndpointSlice } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { WrittenSlices } from "../src/index.js";

const aSlice = (name: string, resourceVersion: string): V1EndpointSlice => ({
  addressType: "IPv4",
  endpoints: [],
  metadata: { name, namespace: "shop", resourceVersion },
});
const all = () => true;
const versions = (slices: V1EndpointSlice[]) =>
  slices.map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`);

describe("WrittenSlices", () => {
  it("shows our writes until the informer has caught up with them", () => {
    const written = new WrittenSlices();
    written.recordWrites("shop", [aSlice("a", "12"), aSlice("new", "13")], []);
    expect(versions(written.view([aSlice("a", "10")], "shop", all))).toEqual(["a@12", "new@13"]);
    written.observe(aSlice("a", "11"), false); // an older event arriving late changes nothing
    expect(versions(written.view([aSlice("a", "11")], "shop", all))).toEqual(["a@12", "new@13"]);
    written.observe(aSlice("a", "12"), false);
    written.observe(aSlice("new", "14"), false); // somebody else changed it after us: the informer wins
    expect(versions(written.view([aSlice("a", "12"), aSlice("new", "14")], "shop", all))).toEqual([
      "a@12",
      "new@14",
    ]);
  });

  it("hides slices we deleted until the informer sees the delete, and only in their namespace", () => {
    const written = new WrittenSlices();
    written.recordWrites("shop", [], ["a"]);
    expect(versions(written.view([aSlice("a", "10"), aSlice("b", "10")], "shop", all))).toEqual(["b@10"]);
    written.observe(aSlice("a", "10"), true);
    expect(versions(written.view([aSlice("a", "15")], "shop", all))).toEqual(["a@15"]);
    written.recordWrites("other", [aSlice("x", "3")], []);
    expect(versions(written.view([], "shop", all))).toEqual([]);
  });

  it("tells an echo of our own write or delete apart from a change made by somebody else", () => {
    const written = new WrittenSlices();
    written.recordWrites("shop", [aSlice("a", "12"), aSlice("b", "20")], ["gone"]);
    expect(written.observe(aSlice("a", "11"), false)).toBe(true); // older than ours: nothing new
    expect(written.observe(aSlice("a", "12"), false)).toBe(true); // our write coming back
    expect(written.observe(aSlice("a", "13"), false)).toBe(false); // changed after the echo: reconcile
    expect(written.observe(aSlice("b", "21"), false)).toBe(false); // changed by somebody else
    expect(written.observe(aSlice("gone", "9"), true)).toBe(true); // our delete coming back
    expect(written.observe(aSlice("c", "5"), true)).toBe(false); // deleted by somebody else: recreate it
    expect(written.observe(aSlice("d", "5"), false)).toBe(false); // never written by us
  });
});
