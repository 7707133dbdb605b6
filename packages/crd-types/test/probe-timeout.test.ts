import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyDefaults, serviceWithHealthchecks, validate } from "../src/index.js";
import { boundedTimeoutSeconds } from "../src/internal.js";
import { specArb } from "./support/arbitraries.js";

describe("boundedTimeoutSeconds", () => {
  it.each([
    { timeout: 1, period: 10, bounded: 1, why: "the defaults" },
    { timeout: 10, period: 10, bounded: 10, why: "equal to the period" },
    { timeout: 3600, period: 10, bounded: 10, why: "stored before the rule: the period" },
    { timeout: 3600, period: 108000, bounded: 60, why: "stored before the rule, long period: 60 s" },
    { timeout: 2_147_483_647, period: 600, bounded: 60, why: "the int32 maximum" },
    { timeout: 30, period: 60, bounded: 30, why: "within both bounds" },
  ])("bounds $timeout s with a period of $period s to $bounded s ($why)", ({ timeout, period, bounded }) => {
    expect(boundedTimeoutSeconds(timeout, period)).toBe(bounded);
  });

  it("changes no timeout of an object the API server accepts", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        expect(validate(serviceWithHealthchecks({ name: "p" }, spec))).toEqual([]);
        const { healthcheck } = applyDefaults(spec);
        for (const probe of healthcheck.probes) {
          expect(boundedTimeoutSeconds(probe.timeoutSeconds, healthcheck.periodSeconds)).toBe(
            probe.timeoutSeconds,
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
