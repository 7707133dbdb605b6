/** Cuts `bytes` at the given offsets (any order, out-of-range ignored) into the reads a socket could deliver. */
export function splitAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const offsets = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const at of offsets) {
    parts.push(bytes.subarray(from, at));
    from = at;
  }
  parts.push(bytes.subarray(from));
  return parts;
}
