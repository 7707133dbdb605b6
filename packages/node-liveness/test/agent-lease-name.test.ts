import { AGENT_LEASE_PREFIX } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { agentLeaseName, agentLeaseNode } from "../src/index.js";

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const N253 = [`${"b".repeat(63)}`, `${"c".repeat(63)}`, `${"d".repeat(63)}`, `${"e".repeat(61)}`].join(".");

describe("agentLeaseName", () => {
  it("keeps swh-agent-<node> for every name that fits, as earlier releases named the Lease", () => {
    expect(agentLeaseName("node-a")).toBe(`${AGENT_LEASE_PREFIX}node-a`);
    const n243 = `${"x".repeat(63)}.${"y".repeat(63)}.${"z".repeat(63)}.${"w".repeat(51)}`;
    expect(agentLeaseName(n243)).toBe(`${AGENT_LEASE_PREFIX}${n243}`);
  });

  it.each([
    ["244 characters", `${"x".repeat(63)}.${"y".repeat(63)}.${"z".repeat(63)}.${"w".repeat(52)}`],
    ["253 characters", N253],
    [
      "a cut that ends on a dot",
      `${"q".repeat(63)}.${"q".repeat(63)}.${"q".repeat(63)}.${"q".repeat(39)}.${"r".repeat(21)}`,
    ],
  ])("names the Lease of a node of %s with a valid object name, distinct per node", (_name, node) => {
    const name = agentLeaseName(node);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(DNS_SUBDOMAIN);
    expect(name.startsWith(AGENT_LEASE_PREFIX)).toBe(true);
    expect(agentLeaseName(`${node.slice(0, -1)}z`)).not.toBe(name);
  });
});

describe("agentLeaseNode", () => {
  it("maps a Lease to its node by spec.holderIdentity, when the Lease carries that node's name", () => {
    const lease = (name: string, holderIdentity?: string) => ({
      metadata: { name },
      spec: holderIdentity === undefined ? {} : { holderIdentity },
    });
    expect(agentLeaseNode(lease(agentLeaseName(N253), N253))).toBe(N253);
    expect(agentLeaseNode(lease("swh-agent-node-a", "node-a"))).toBe("node-a");
    expect(agentLeaseNode(lease("swh-agent-node-a", "node-b"))).toBeUndefined();
    expect(agentLeaseNode(lease("swh-agent-node-a"))).toBeUndefined();
    expect(agentLeaseNode(lease("swh-controller-leader", "controller-0"))).toBeUndefined();
  });
});
