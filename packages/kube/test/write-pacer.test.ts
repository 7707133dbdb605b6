import { describe, expect, it } from "vitest";
import { WritePacer } from "../src/index.js";

describe("WritePacer", () => {
  it("lets isolated changes through at once and spaces a stream of writes at the refill rate", () => {
    const pacer = new WritePacer({ burst: 2, refillPerSecond: 2 });
    expect(pacer.delayMs("ns/a", 0)).toBe(0);
    pacer.recordWrite("ns/a", 0);
    expect(pacer.delayMs("ns/a", 0)).toBe(0);
    pacer.recordWrite("ns/a", 0);
    // Burst spent: the next write waits for the next token (half a second at 2 a second).
    expect(pacer.delayMs("ns/a", 0)).toBe(500);
    expect(pacer.delayMs("ns/a", 250)).toBe(250);
    expect(pacer.delayMs("ns/a", 500)).toBe(0);
    // Other SWHs have their own buckets.
    expect(pacer.delayMs("ns/b", 10)).toBe(0);
  });

  it("is back to immediate writes once a quiet SWH has refilled", () => {
    const pacer = new WritePacer({ burst: 1, refillPerSecond: 1 });
    pacer.recordWrite("ns/a", 0);
    pacer.recordWrite("ns/a", 0); // an unpaced write with no token left
    expect(pacer.delayMs("ns/a", 0)).toBe(1000);
    expect(pacer.delayMs("ns/a", 5_000)).toBe(0);
  });
});
