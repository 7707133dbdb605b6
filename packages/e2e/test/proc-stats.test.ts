import { describe, expect, it } from "vitest";
import { readProcStats } from "../src/index.js";

describe("readProcStats", () => {
  it("reads this process's CPU time and memory, and CPU time grows with work", () => {
    const before = readProcStats(process.pid);
    const until = process.cpuUsage().user + 300_000; // burn 0.3 s of user CPU
    while (process.cpuUsage().user < until) Math.sqrt(Math.random());
    const after = readProcStats(process.pid);
    expect(after.cpuSeconds - before.cpuSeconds).toBeGreaterThanOrEqual(0.2);
    expect(after.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(after.peakRssBytes).toBeGreaterThanOrEqual(after.rssBytes);
  });
});
