/** Slices as the controller's index holds them: each read once through the contract's reader. */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { type IndexedSlice, SliceIndex } from "../src/index.js";

/** `slices` as `SliceIndex` returns them (in the given order); a slice the reader rejects fails the test. */
export function indexed(slices: readonly V1EndpointSlice[]): IndexedSlice[] {
  return slices.map((slice) => {
    const entry = new SliceIndex().upsert(slice);
    if (entry === undefined) throw new Error(`slice ${slice.metadata?.name} does not read back`);
    return entry;
  });
}
