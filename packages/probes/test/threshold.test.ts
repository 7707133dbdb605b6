import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  initialThresholdState,
  nextThresholdState,
  seededThresholdState,
  type ThresholdState,
} from "../src/index.js";

const thresholds = fc.record({
  successThreshold: fc.integer({ min: 1, max: 6 }),
  failureThreshold: fc.integer({ min: 1, max: 6 }),
});
const results = fc.array(fc.boolean(), { maxLength: 60 });

function run(
  results: readonly boolean[],
  t: { successThreshold: number; failureThreshold: number },
  from = initialThresholdState(),
) {
  const states: ThresholdState[] = [];
  let s = from;
  for (const r of results) {
    s = nextThresholdState(s, r, t);
    states.push(s);
  }
  return states;
}

describe("threshold state machine", () => {
  it("starts failing", () => {
    expect(initialThresholdState().passing).toBe(false);
    expect(seededThresholdState(true).passing).toBe(true);
  });

  it.each([
    { t: { successThreshold: 1, failureThreshold: 3 }, results: [true], passing: [true] },
    {
      t: { successThreshold: 2, failureThreshold: 3 },
      results: [true, false, true, true],
      passing: [false, false, false, true],
    },
    {
      t: { successThreshold: 1, failureThreshold: 3 },
      results: [true, false, false, true, false, false, false],
      passing: [true, true, true, true, true, true, false],
    },
  ])("follows $results with $t", ({ t, results, passing }) => {
    expect(run(results, t).map((s) => s.passing)).toEqual(passing);
  });

  it("flips to passing exactly when the last successThreshold results were successes (from failing)", () => {
    fc.assert(
      fc.property(thresholds, results, (t, rs) => {
        const states = run(rs, t);
        states.forEach((s, i) => {
          const prev = i === 0 ? initialThresholdState() : (states[i - 1] as ThresholdState);
          if (!prev.passing && s.passing) {
            const window = rs.slice(i + 1 - t.successThreshold, i + 1);
            expect(window.length).toBe(t.successThreshold);
            expect(window.every(Boolean)).toBe(true);
          }
          if (prev.passing && !s.passing) {
            const window = rs.slice(i + 1 - t.failureThreshold, i + 1);
            expect(window.length).toBe(t.failureThreshold);
            expect(window.some(Boolean)).toBe(false);
          }
        });
      }),
    );
  });

  it("never flips on a result that agrees with the state, and a run of threshold results always flips", () => {
    fc.assert(
      fc.property(thresholds, results, fc.boolean(), (t, rs, seed) => {
        const start = seededThresholdState(seed);
        const states = run(rs, t, start);
        states.forEach((s, i) => {
          const prev = i === 0 ? start : (states[i - 1] as ThresholdState);
          if (rs[i] === prev.passing) expect(s.passing).toBe(prev.passing);
        });
        const last = states.at(-1) ?? start;
        const target = !last.passing;
        const needed = target ? t.successThreshold : t.failureThreshold;
        const after = run(Array(needed).fill(target), t, last);
        expect(after.at(-1)?.passing).toBe(target);
      }),
    );
  });
});
