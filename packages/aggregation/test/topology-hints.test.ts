import { describe, expect, it } from "vitest";
import { aggregateEndpoints, type PodInfo, publishedZoneHints, zoneHintsVerdict } from "../src/index.js";
import { aPod, aSwh, statesFor } from "./builders.js";

const ZONES: Record<string, string> = { "node-a": "zone-a", "node-b": "zone-b", "node-empty": "" };
const pods: PodInfo[] = [
  aPod({ name: "web-a", uid: "uid-a", nodeName: "node-a", ips: ["10.0.0.1"] }),
  aPod({ name: "web-b", uid: "uid-b", nodeName: "node-b", ips: ["10.0.0.2", "fd00::2"] }),
];

/** The hints of every published endpoint, by pod and address. */
function hintsOf(trafficDistribution: string | undefined, zoneHints?: boolean, on: PodInfo[] = pods) {
  const swh = aSwh({ spec: trafficDistribution === undefined ? {} : { trafficDistribution } });
  const options = {
    zoneOf: (node: string) => ZONES[node],
    ...(zoneHints === undefined ? {} : { zoneHints }),
  };
  return aggregateEndpoints(swh, on, statesFor([swh], on), options).groups.flatMap((g) =>
    g.endpoints.map((e) => [e.targetRef.name, e.address, e.hints]),
  );
}

describe("topology hints from trafficDistribution", () => {
  it("gives none without the field, as before", () => {
    expect(hintsOf(undefined).every(([, , hints]) => hints === undefined)).toBe(true);
  });

  it.each(["PreferClose", "PreferSameZone"])(
    "%s: each endpoint is hinted for its own node's zone",
    (mode) => {
      expect(hintsOf(mode)).toEqual([
        ["web-a", "10.0.0.1", { forZones: ["zone-a"] }],
        ["web-b", "10.0.0.2", { forZones: ["zone-b"] }],
        ["web-b", "fd00::2", { forZones: ["zone-b"] }],
      ]);
    },
  );

  it("PreferSameNode: hinted for its own node, and for its zone as the fallback", () => {
    expect(hintsOf("PreferSameNode")).toContainEqual([
      "web-a",
      "10.0.0.1",
      { forZones: ["zone-a"], forNodes: ["node-a"] },
    ]);
  });

  it("gives no zone hint when the controller's verdict withholds them; node hints stay", () => {
    expect(hintsOf("PreferClose", false).map(([, , hints]) => hints)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(hintsOf("PreferSameNode", false)[0]).toEqual(["web-a", "10.0.0.1", { forNodes: ["node-a"] }]);
  });

  it("gives no zone hint to an endpoint whose node has an empty zone label", () => {
    const zoneless = [aPod({ name: "web-e", nodeName: "node-empty", ips: ["10.0.0.9"] })];
    const [endpoint] = hintsOf("PreferClose", true, zoneless);
    expect(endpoint).toEqual(["web-e", "10.0.0.9", undefined]);
  });

  it("ignores values kube-proxy does not know", () => {
    expect(hintsOf("PreferFarAway").every(([, , hints]) => hints === undefined)).toBe(true);
  });
});

describe("the controller's zone-hints verdict", () => {
  it("allows zone hints when every endpoint has a zone, and when there is no endpoint", () => {
    expect(
      zoneHintsVerdict([
        { nodeName: "a", zone: "z1" },
        { nodeName: "b", zone: "z2" },
      ]),
    ).toEqual({
      zoneHints: true,
    });
    expect(zoneHintsVerdict([])).toEqual({ zoneHints: true });
  });

  it("withholds them when some endpoint has no zone (or an empty one), naming each such node once", () => {
    expect(
      zoneHintsVerdict([
        { nodeName: "n3", zone: "" },
        { nodeName: "n1", zone: "z1" },
        { nodeName: "n2" },
        { nodeName: "n2" },
      ]),
    ).toEqual({ zoneHints: false, nodesWithoutZone: ["n2", "n3"] });
  });

  it("is published only for a trafficDistribution that asks for zone hints", () => {
    const zoneless = [{ nodeName: "n1" }];
    expect(publishedZoneHints(undefined, zoneless)).toBeUndefined();
    expect(publishedZoneHints("PreferFarAway", zoneless)).toBeUndefined();
    expect(publishedZoneHints("PreferClose", zoneless)).toBe(false);
    expect(publishedZoneHints("PreferSameNode", [{ nodeName: "n1", zone: "z" }])).toBe(true);
  });
});
