import { describe, expect, it } from "vitest";
import { errorSummary, ObjectProblemReporter } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

function reporter(maxRemembered?: number) {
  const recorded: { name: string; type: string; reason: string; message: string }[] = [];
  const logger = memoryLogger();
  const events = {
    record: (subject: { name: string }, type: string, reason: string, message: string) =>
      recorded.push({ name: subject.name, type, reason, message }),
  };
  const problems = new ObjectProblemReporter({
    events,
    logger,
    ...(maxRemembered === undefined ? {} : { maxRemembered }),
  });
  return { problems, recorded, logger };
}

const pod = (name: string, uid = `uid-${name}`) => ({
  kind: "Pod",
  apiVersion: "v1",
  name,
  namespace: "shop",
  uid,
});

describe("ObjectProblemReporter", () => {
  it("records one Warning Event and one warning log per object and problem, however often it is reported", () => {
    const { problems, recorded, logger } = reporter();
    for (let i = 0; i < 5; i++)
      problems.warn(pod("a"), "UnreadablePod", "bad labels", "pod a: bad labels", new TypeError("boom"));
    expect(recorded).toEqual([
      { name: "a", type: "Warning", reason: "UnreadablePod", message: "pod a: bad labels" },
    ]);
    const warnings = logger.lines.filter((l) => l.msg === "object problem");
    expect(warnings).toEqual([
      expect.objectContaining({
        level: "warn",
        kind: "Pod",
        object: "shop/a",
        reason: "UnreadablePod",
        problem: "bad labels",
        err: "TypeError: boom",
      }),
    ]);
  });

  it("reports again for another problem, another reason, or the same name with another uid (a new object)", () => {
    const { problems, recorded } = reporter();
    problems.warn(pod("a"), "R", "p1", "m");
    problems.warn(pod("a"), "R", "p2", "m");
    problems.warn(pod("a"), "S", "p1", "m");
    problems.warn(pod("a", "uid-new"), "R", "p1", "m");
    problems.warn(pod("b"), "R", "p1", "m");
    expect(recorded).toHaveLength(5);
  });

  it("forgets what it reported once its memory is full, so a repeat is reported again rather than memory growing", () => {
    const { problems, recorded } = reporter(2);
    problems.warn(pod("a"), "R", "p", "m");
    problems.warn(pod("b"), "R", "p", "m");
    problems.warn(pod("a"), "R", "p", "m"); // still remembered
    expect(recorded).toHaveLength(2);
    problems.warn(pod("c"), "R", "p", "m"); // memory full: starts over with c
    problems.warn(pod("a"), "R", "p", "m");
    expect(recorded.map((r) => r.name)).toEqual(["a", "b", "c", "a"]);
  });

  it("answers firstTime once per key, sharing the memory of warnings", () => {
    const { problems } = reporter();
    expect(problems.firstTime("missing shop/web")).toBe(true);
    expect(problems.firstTime("missing shop/web")).toBe(false);
    expect(problems.firstTime("missing shop/api")).toBe(true);
  });
});

describe("errorSummary", () => {
  it("names the error and cuts its text to 200 characters", () => {
    expect(errorSummary(new RangeError("out"))).toBe("RangeError: out");
    expect(errorSummary("plain")).toBe("plain");
    const long = errorSummary(new Error("x".repeat(500)));
    expect(long).toHaveLength(200);
    expect(long.endsWith("…")).toBe(true);
  });
});
