import { PROBE_FAILURE_REASON_SOURCES, PROBE_FAILURE_REASONS } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { PROBE_REASONS } from "../src/index.js";

describe("PROBE_REASONS", () => {
  it("holds every reason the catalogue gives to the probe engine, once each, and nothing else", () => {
    const ofProbe = Object.entries(PROBE_FAILURE_REASON_SOURCES)
      .filter(([, source]) => source === "probe")
      .map(([reason]) => reason);
    expect([...PROBE_REASONS].sort()).toEqual(ofProbe.sort());
  });

  it("keeps the catalogue's order", () => {
    const engine: readonly string[] = PROBE_REASONS;
    expect(PROBE_REASONS).toEqual(PROBE_FAILURE_REASONS.filter((reason) => engine.includes(reason)));
  });

  // ADR 0028 decision 6: what a prober can observe of a target, nothing about who runs it.
  it("names nothing only the agent can know: credentials, a pod's named port, a missing result", () => {
    for (const reason of [
      "CredentialsMissing",
      "CredentialsInvalid",
      "CredentialsNotPermitted",
      "PortNotFound",
      "NotProbedYet",
    ])
      expect(PROBE_REASONS).not.toContain(reason);
  });
});
