import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyDefaults, serviceWithHealthchecks, validate } from "../src/index.js";
import { specArb } from "./support/arbitraries.js";
import { applyMutation, MUTATIONS } from "./support/mutations.js";

/**
 * Hundreds of synchronous cases: about a second on an idle machine, many times that on a loaded 2-core CI runner
 * where every suite runs at once. The timeout is sized for that load; it bounds slowness only (a property that
 * fails still fails at once, with its shrunk counterexample).
 */
const PROPERTY_TIMEOUT_MS = 120_000;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("properties of applyDefaults and validate", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it("every generated valid spec validates, before and after defaulting", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        expect(validate(serviceWithHealthchecks({ name: "p" }, spec))).toEqual([]);
        expect(validate(serviceWithHealthchecks({ name: "p" }, applyDefaults(spec)))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("never mutates its input and is idempotent", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const copy = structuredClone(spec);
        const once = applyDefaults(deepFreeze(spec));
        expect(spec).toEqual(copy);
        expect(applyDefaults(once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every value the user set", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        expect(applyDefaults(spec)).toMatchObject(spec);
      }),
      { numRuns: 300 },
    );
  });

  it("always yields the fields consumers rely on", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const d = applyDefaults(spec);
        expect(d.type).toBeTypeOf("string");
        expect(Array.isArray(d.ports)).toBe(true);
        expect(d.healthcheck.periodSeconds).toBeGreaterThanOrEqual(1);
        for (const p of d.ports) expect(p.protocol).toBeTypeOf("string");
        for (const p of d.healthcheck.probes) {
          expect(p.timeoutSeconds).toBeGreaterThanOrEqual(1);
          expect(p.successThreshold).toBeGreaterThanOrEqual(1);
          expect(p.failureThreshold).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("validate never throws, whatever it is given, and names a field for every issue", () => {
    const spec = fc.oneof(specArb, fc.anything(), fc.object());
    fc.assert(
      fc.property(spec, fc.anything(), (s, meta) => {
        const issues = validate({
          apiVersion: "network.deckhouse.io/v1alpha1",
          kind: "ServiceWithHealthchecks",
          metadata: meta,
          spec: s,
        });
        for (const issue of issues) expect(issue.message).not.toBe("");
      }),
      { numRuns: 500 },
    );
    for (const mutation of MUTATIONS) {
      expect(() =>
        validate(serviceWithHealthchecks({ name: "m" }, applyMutation({}, mutation))),
      ).not.toThrow();
    }
  });
});
