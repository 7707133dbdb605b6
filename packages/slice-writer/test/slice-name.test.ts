import { describe, expect, it } from "vitest";
import { MAX_SLICE_NAME_LENGTH, nodeLabelValue, type SliceKey, sliceName } from "../src/index.js";

const key: SliceKey = { portName: "http", port: 8080, protocol: "TCP", addressFamily: "IPv4" };
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe("sliceName", () => {
  it("is readable and deterministic", () => {
    const name = sliceName({ swhName: "web", nodeName: "node-a", key, index: 0 });
    expect(name).toMatch(/^web-node-a-http-v4-[0-9a-f]{10}$/);
    expect(sliceName({ swhName: "web", nodeName: "node-a", key, index: 0 })).toBe(name);
    expect(sliceName({ swhName: "web", nodeName: "node-a", key, index: 2 })).toBe(`${name}-2`);
  });

  it.each([
    ["dashes moved between parts", { swhName: "a-b", nodeName: "c" }, { swhName: "a", nodeName: "b-c" }],
    [
      "port number vs protocol",
      { swhName: "a", nodeName: "n", key: { ...key, protocol: "UDP" } },
      { swhName: "a", nodeName: "n" },
    ],
    [
      "address family",
      { swhName: "a", nodeName: "n", key: { ...key, addressFamily: "IPv6" } },
      { swhName: "a", nodeName: "n" },
    ],
  ])("does not collide: %s", (_what, a, b) => {
    expect(sliceName({ key, index: 0, ...a })).not.toBe(sliceName({ key, index: 0, ...b }));
  });

  it("stays a valid DNS subdomain within 253 characters for the longest names, and distinct", () => {
    const longNode = `${"n".repeat(120)}.${"m".repeat(120)}`;
    const longSwh = "s".repeat(63);
    const names = [0, 1, 12].map((index) => sliceName({ swhName: longSwh, nodeName: longNode, key, index }));
    const other = sliceName({ swhName: longSwh, nodeName: `${longNode}x`, key, index: 0 });
    for (const name of [...names, other]) {
      expect(name.length).toBeLessThanOrEqual(MAX_SLICE_NAME_LENGTH);
      expect(name).toMatch(DNS_SUBDOMAIN);
    }
    expect(new Set([...names, other]).size).toBe(4);
  });

  it("never ends a cut prefix with a dot before the hash", () => {
    for (let cut = 200; cut < 240; cut++) {
      const name = sliceName({
        swhName: "w",
        nodeName: `${"a".repeat(cut)}.b${"c".repeat(40)}`,
        key,
        index: 0,
      });
      expect(name).toMatch(DNS_SUBDOMAIN);
    }
  });
});

describe("nodeLabelValue", () => {
  it("is the node name when it fits, a distinct 63-character value when not", () => {
    expect(nodeLabelValue("node-a")).toBe("node-a");
    const long = nodeLabelValue(`${"a".repeat(70)}.example`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).not.toBe(nodeLabelValue(`${"a".repeat(70)}.example2`));
  });
});
