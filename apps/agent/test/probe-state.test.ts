import { describe, expect, it } from "vitest";
import { nextProbeState, sameProbeState } from "../src/internal/probe-state.js";

const refused = { ok: false, reason: "ConnectionRefused", message: "connection refused" };
const ok = { ok: true, message: "ok" };

describe("nextProbeState", () => {
  it("publishes a passing target without a reason", () => {
    expect(nextProbeState({ passing: false, reason: "Timeout" }, true, ok)).toEqual({ passing: true });
  });

  it("publishes the reason of the latest failure", () => {
    expect(nextProbeState(undefined, false, refused)).toEqual({
      passing: false,
      reason: "ConnectionRefused",
      message: "connection refused",
    });
  });

  it("keeps the failure reason while a failing target recovers below its success threshold", () => {
    const failing = { passing: false, reason: "HTTPStatus", message: "status 503" };
    expect(nextProbeState(failing, false, ok)).toBe(failing);
  });

  it("keeps failing-without-result for a new target whose first success is not enough", () => {
    expect(nextProbeState(undefined, false, ok)).toEqual({ passing: false });
  });

  it("keeps reporting a failure of a still-passing target as passing (below failureThreshold)", () => {
    expect(nextProbeState({ passing: true }, true, refused)).toEqual({ passing: true });
  });

  it("bounds long messages", () => {
    const state = nextProbeState(undefined, false, { ok: false, reason: "Error", message: "x".repeat(5000) });
    expect(state.message?.length).toBe(200);
  });
});

describe("sameProbeState", () => {
  it("compares what is published", () => {
    expect(sameProbeState({ passing: true }, { passing: true })).toBe(true);
    expect(sameProbeState(undefined, { passing: false })).toBe(false);
    expect(sameProbeState({ passing: false, reason: "A" }, { passing: false, reason: "B" })).toBe(false);
  });
});
