import { describe, expect, it } from "vitest";
import { podInfoFromPod } from "../src/index.js";
import { aServedPod as aPod } from "./support/served-pod.js";

describe("podInfoFromPod", () => {
  it("extracts identity, addresses of both families, readiness and every container port", () => {
    expect(podInfoFromPod(aPod())).toEqual({
      name: "web-0",
      namespace: "shop",
      uid: "uid-1",
      nodeName: "node-a",
      ips: ["10.244.1.5", "fd00:10:244::1:5"],
      phase: "Running",
      ready: true,
      terminating: false,
      labels: { app: "web" },
      containerPorts: [
        { name: "http", containerPort: 8080, protocol: "TCP" },
        { containerPort: 53, protocol: "UDP" },
        { name: "metrics", containerPort: 9090, protocol: "TCP" },
      ],
      eligibleSince: "2026-01-01T00:00:05.000Z",
    });
  });

  it("marks a pod with a deletionTimestamp as terminating and keeps its Ready bit", () => {
    expect(podInfoFromPod(aPod({ deleting: true, ready: false }))).toMatchObject({
      terminating: true,
      ready: false,
    });
  });

  it("has no eligibility time before the pod runs with an IP", () => {
    expect(podInfoFromPod(aPod({ phase: "Pending" }))?.eligibleSince).toBeUndefined();
    expect(podInfoFromPod(aPod({ ips: [] }))?.eligibleSince).toBeUndefined();
  });

  it("never mutates the informer object", () => {
    const pod = aPod();
    const frozen = structuredClone(pod);
    const info = podInfoFromPod(pod);
    if (info) (info.labels as Record<string, string>).extra = "x";
    expect(pod).toEqual(frozen);
  });
});
