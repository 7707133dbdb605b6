import { describe, expect, it } from "vitest";
import { type PodInfo, samePodInfo } from "../src/index.js";
import { aPod } from "./builders.js";

describe("samePodInfo", () => {
  it("is true for equal pods built apart, labels in any order", () => {
    const a = aPod({ labels: { app: "web", tier: "front" } });
    const b = aPod({ labels: { tier: "front", app: "web" } });
    expect(a).not.toBe(b);
    expect(samePodInfo(a, b)).toBe(true);
  });

  const changes: [string, Partial<PodInfo>][] = [
    ["another uid (a recreated pod)", { uid: "uid-2" }],
    ["another node", { nodeName: "node-b" }],
    ["another IP", { ips: ["10.244.1.2"] }],
    ["a second IP", { ips: ["10.244.1.1", "fd00::1"] }],
    ["another phase", { phase: "Succeeded" }],
    ["Ready turned false", { ready: false }],
    ["terminating", { terminating: true }],
    ["another eligibility time", { eligibleSince: "2026-01-01T00:00:01Z" }],
    ["a label value changed", { labels: { app: "api" } }],
    ["a label added", { labels: { app: "web", extra: "" } }],
    ["a port renamed", { containerPorts: [{ name: "web", containerPort: 8080, protocol: "TCP" }] }],
    [
      "a port's protocol changed",
      { containerPorts: [{ name: "http", containerPort: 8080, protocol: "UDP" }] },
    ],
    ["a port removed", { containerPorts: [{ name: "http", containerPort: 8080, protocol: "TCP" }] }],
  ];
  it.each(changes)("is false when only %s", (_what, change) => {
    expect(samePodInfo(aPod(), aPod(change))).toBe(false);
    expect(samePodInfo(aPod(change), aPod())).toBe(false);
  });

  it("treats a missing eligibility time as a difference from any time", () => {
    const { eligibleSince: _dropped, ...notEligible } = aPod();
    expect(samePodInfo(notEligible, aPod())).toBe(false);
  });

  it("equals an absent pod only to an absent pod", () => {
    expect(samePodInfo(undefined, undefined)).toBe(true);
    expect(samePodInfo(aPod(), undefined)).toBe(false);
    expect(samePodInfo(undefined, aPod())).toBe(false);
  });
});
