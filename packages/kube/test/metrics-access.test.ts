import { describe, expect, it } from "vitest";
import { type AccessDecision, cachedMetricsAccess, type MetricsAccess } from "../src/index.js";
import { FakeClock } from "./support/fake-clock.js";

/** An access reviewer answering from a table, counting the calls the API server would get. */
function fakeAccess(answers: Record<string, AccessDecision | Error>) {
  const calls: string[] = [];
  const access: MetricsAccess = {
    async review(token) {
      calls.push(token);
      const answer = answers[token] ?? "unauthenticated";
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { access, calls };
}

describe("cachedMetricsAccess", () => {
  it("reuses an allow for allowedTtlMs and a deny for deniedTtlMs, then asks again", async () => {
    const clock = new FakeClock();
    const fake = fakeAccess({ reader: "allowed", stranger: "denied" });
    const access = cachedMetricsAccess(fake.access, { allowedTtlMs: 30_000, deniedTtlMs: 10_000, clock });
    for (let i = 0; i < 5; i++) {
      expect(await access.review("reader")).toBe("allowed");
      expect(await access.review("stranger")).toBe("denied");
      expect(await access.review("made-up")).toBe("unauthenticated");
    }
    expect(fake.calls.sort()).toEqual(["made-up", "reader", "stranger"]);
    clock.advance(10_000);
    await access.review("reader");
    await access.review("stranger");
    expect(fake.calls.filter((t) => t === "reader")).toHaveLength(1);
    expect(fake.calls.filter((t) => t === "stranger")).toHaveLength(2);
    clock.advance(20_000);
    await access.review("reader");
    expect(fake.calls.filter((t) => t === "reader")).toHaveLength(2);
  });

  it("never caches an error: the next request asks again, and an error is never an allow", async () => {
    const answers: Record<string, AccessDecision | Error> = { reader: new Error("API server unavailable") };
    const fake = fakeAccess(answers);
    const access = cachedMetricsAccess(fake.access, { clock: new FakeClock() });
    await expect(access.review("reader")).rejects.toThrow(/unavailable/);
    await expect(access.review("reader")).rejects.toThrow(/unavailable/);
    answers.reader = "allowed";
    expect(await access.review("reader")).toBe("allowed");
    expect(fake.calls).toHaveLength(3);
  });

  it("shares one review between concurrent requests with the same token", async () => {
    const fake = fakeAccess({ reader: "allowed" });
    const access = cachedMetricsAccess(fake.access, { clock: new FakeClock() });
    const decisions = await Promise.all(Array.from({ length: 20 }, () => access.review("reader")));
    expect(new Set(decisions)).toEqual(new Set(["allowed"]));
    expect(fake.calls).toHaveLength(1);
  });

  it("remembers at most maxEntries tokens", async () => {
    const fake = fakeAccess({});
    const access = cachedMetricsAccess(fake.access, { maxEntries: 2, clock: new FakeClock() });
    for (const token of ["a", "b", "c", "a"]) await access.review(token);
    expect(fake.calls).toEqual(["a", "b", "c", "a"]);
  });

  it("rejects beyond maxPending reviews in flight instead of queueing API calls", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: MetricsAccess = {
      review: async () => {
        await gate;
        return "unauthenticated";
      },
    };
    const access = cachedMetricsAccess(slow, { maxPending: 2, clock: new FakeClock() });
    const first = [access.review("t1"), access.review("t2")];
    await expect(access.review("t3")).rejects.toThrow(/in flight/);
    release();
    expect(await Promise.all(first)).toEqual(["unauthenticated", "unauthenticated"]);
    expect(await access.review("t3")).toBe("unauthenticated");
  });
});
