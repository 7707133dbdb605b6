import { describe, expect, it } from "vitest";
import { serviceWithHealthchecks, tcpProbe } from "../src/index.js";
import { ANNOTATION_SWH_SPEC, publishedSpecValue, readPublishedSwh } from "../src/internal.js";

const swh = serviceWithHealthchecks(
  { name: "web", namespace: "team-a" },
  { ports: [{ name: "http", port: 80, targetPort: 8080 }], healthcheck: { probes: [tcpProbe(8080)] } },
);
swh.metadata.uid = "uid-1";
swh.metadata.generation = 7;

function serviceWith(annotation: string | undefined) {
  return {
    metadata: {
      name: "web",
      namespace: "team-a",
      annotations: annotation === undefined ? {} : { [ANNOTATION_SWH_SPEC]: annotation },
    },
  };
}

describe("the SWH spec published on its Service", () => {
  it("reads back what the controller wrote, named after the Service", () => {
    expect(readPublishedSwh(serviceWith(publishedSpecValue(swh)))).toEqual({
      state: "swh",
      uid: "uid-1",
      zoneHints: true,
      failOpen: [],
      swh: {
        apiVersion: "network.deckhouse.io/v1alpha1",
        kind: "ServiceWithHealthchecks",
        metadata: { name: "web", namespace: "team-a", uid: "uid-1", generation: 7 },
        spec: swh.spec,
      },
    });
  });

  it("carries the controller's zone-hints verdict; without one, zone hints are allowed (ADR 0035)", () => {
    const read = (verdict: boolean | undefined) =>
      readPublishedSwh(serviceWith(publishedSpecValue(swh, { zoneHints: verdict })));
    expect(read(false)).toMatchObject({ state: "swh", zoneHints: false });
    expect(read(true)).toMatchObject({ state: "swh", zoneHints: true });
    expect(read(undefined)).toMatchObject({ state: "swh", zoneHints: true });
    // No verdict, no key: the annotation of an SWH without trafficDistribution is as before.
    expect(JSON.parse(publishedSpecValue(swh, { zoneHints: undefined }))).not.toHaveProperty("zoneHints");
  });

  it("carries the controller's fail-open verdict: the port names, absent when none fails open (ADR 0039)", () => {
    const read = (ports: string[] | undefined) =>
      readPublishedSwh(serviceWith(publishedSpecValue(swh, { failOpen: ports })));
    expect(read(["http", "grpc"])).toMatchObject({ state: "swh", failOpen: ["http", "grpc"] });
    expect(read([])).toMatchObject({ state: "swh", failOpen: [] });
    expect(JSON.parse(publishedSpecValue(swh, { failOpen: [] }))).not.toHaveProperty("failOpen");
  });

  it("says nothing is known when the annotation is missing (a Service an older controller wrote)", () => {
    expect(readPublishedSwh(serviceWith(undefined))).toEqual({ state: "missing" });
  });

  it.each([
    ["not JSON", "{", "is not JSON"],
    ["not an object", "[]", "must be a JSON object"],
    ["without uid", JSON.stringify({ spec: swh.spec }), "uid must be a non-empty string"],
    [
      "with a failOpen verdict that is not a list of names",
      JSON.stringify({ uid: "uid-1", spec: swh.spec, failOpen: "http" }),
      "failOpen must be a list of port names",
    ],
    [
      "with a zoneHints verdict that is not a boolean",
      JSON.stringify({ uid: "uid-1", spec: swh.spec, zoneHints: "no" }),
      "zoneHints must be a boolean",
    ],
  ])("refuses an annotation that is %s", (_what, value, problem) => {
    const read = readPublishedSwh(serviceWith(value));
    expect(read.state).toBe("invalid");
    expect(read.state === "invalid" && read.problem).toContain(problem);
  });

  it("validates the spec as the API server would: an edited annotation cannot lift the CRD's bounds", () => {
    const spec = structuredClone(swh.spec);
    const probe = spec.healthcheck?.probes?.[0];
    if (probe) probe.timeoutSeconds = 100_000;
    const read = readPublishedSwh(serviceWith(JSON.stringify({ uid: "uid-1", spec })));
    expect(read).toMatchObject({ state: "invalid", uid: "uid-1" });
    expect(read.state === "invalid" && read.problem).toMatch(
      /^spec\.healthcheck\.probes\[0\]\.timeoutSeconds/,
    );
  });
});
