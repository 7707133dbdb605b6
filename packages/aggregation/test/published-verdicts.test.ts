import { describe, expect, it } from "vitest";
import { publishedVerdicts } from "../src/index.js";

const passing = (nodeName: string, zone?: string) => ({
  conditions: { serving: true, terminating: false },
  nodeName,
  ...(zone === undefined ? {} : { zone }),
});
const failing = (nodeName: string, zone?: string) => ({
  ...passing(nodeName, zone),
  conditions: { serving: false, terminating: false },
  reason: { reason: "HTTPStatus" },
});

describe("publishedVerdicts", () => {
  it("says nothing of zone hints or failing open when the spec asks for neither", () => {
    const slices = [{ portName: "http", endpoints: [failing("a", "z1")] }];
    expect(publishedVerdicts({}, slices)).toEqual({ zoneHints: undefined, failOpen: [] });
  });

  it("judges over the slices of every node: one endpoint without a zone withholds every zone hint", () => {
    const spec = { trafficDistribution: "PreferClose" };
    const zoned = [
      { portName: "http", endpoints: [passing("a", "z1")] },
      { portName: "http", endpoints: [passing("b", "z2")] },
    ];
    expect(publishedVerdicts(spec, zoned).zoneHints).toBe(true);
    const oneZoneless = [...zoned, { portName: "http", endpoints: [passing("c")] }];
    expect(publishedVerdicts(spec, oneZoneless).zoneHints).toBe(false);
  });

  it("names the ports failing open, by port name, across the slices of every node", () => {
    const spec = { healthcheck: { failOpen: {} } };
    const slices = [
      { portName: "http", endpoints: [failing("a")] },
      { portName: "http", endpoints: [failing("b")] },
      { portName: "grpc", endpoints: [failing("a"), passing("b")] },
    ];
    expect(publishedVerdicts(spec, slices).failOpen).toEqual(["http"]);
  });
});
