import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { MAX_TIMER_DELAY_MS, monotonicClock } from "../src/index.js";

describe("monotonicClock", () => {
  it("caps a delay above Node's timer limit instead of firing it at once", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    let fired = false;
    // A probe timeout or a wake-up computed past the limit: Node would fire it after 1 ms (and warn).
    const handle = monotonicClock.setTimeout(() => {
      fired = true;
    }, MAX_TIMER_DELAY_MS * 2);
    await delay(50);
    monotonicClock.clearTimeout(handle);
    process.off("warning", onWarning);
    expect(fired).toBe(false);
    expect(warnings).not.toContain("TimeoutOverflowWarning");
  });
});
