import { describe, expect, it } from "vitest";
import { waitFor } from "../src/index.ts";

describe("waitFor", () => {
  it("returns the first truthy value", async () => {
    let calls = 0;
    const value = await waitFor("the third call", () => (++calls >= 3 ? { calls } : undefined), {
      intervalMs: 1,
    });
    expect(value).toEqual({ calls: 3 });
  });

  it("treats a throwing check as not yet", async () => {
    let calls = 0;
    const value = await waitFor(
      "a check that recovers",
      async () => {
        calls++;
        if (calls < 2) throw new Error("not yet");
        return "done";
      },
      { intervalMs: 1 },
    );
    expect(value).toBe("done");
  });

  it("names what it waited for and the last value when it times out", async () => {
    await expect(waitFor("the moon", () => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /timed out after 20 ms waiting for the moon; last value: false/,
    );
  });

  it("reports the last error when every check threw", async () => {
    await expect(
      waitFor(
        "a server",
        () => {
          throw new Error("ECONNREFUSED");
        },
        { timeoutMs: 20, intervalMs: 5 },
      ),
    ).rejects.toThrow(/waiting for a server; last error: ECONNREFUSED/);
  });
});
