import type { V1EndpointSlice } from "@kubernetes/client-node";
import {
  ANNOTATION_ENDPOINT_REASONS,
  ANNOTATION_NODE_NAME,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
} from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { nodeLabelValue, planSlices, readSlice } from "../src/index.js";
import { aGroup, anEndpoint, anInput, deepFreeze, nodeName, swh } from "./builders.js";

const LONG = `${"a".repeat(63)}.${"b".repeat(5)}`; // 69 characters

/** A slice as the planner writes it for one endpoint on `node`. */
function written(node = nodeName): V1EndpointSlice {
  const [slice] = planSlices(
    anInput({
      nodeName: node,
      groups: [aGroup({ endpoints: [anEndpoint("10.244.1.1", { nodeName: node })] })],
    }),
  ).create;
  return deepFreeze(slice as V1EndpointSlice);
}

function edit(slice: V1EndpointSlice, change: (s: V1EndpointSlice) => void): V1EndpointSlice {
  const copy = structuredClone(slice);
  change(copy);
  return deepFreeze(copy);
}

describe("readSlice", () => {
  it("reads what the planner wrote: SWH, namespace, full node name, port, family and endpoints", () => {
    expect(readSlice(written(LONG))).toEqual({
      swhName: swh.name,
      namespace: swh.namespace,
      nodeName: LONG,
      portName: "http",
      port: 8080,
      protocol: "TCP",
      addressFamily: "IPv4",
      endpoints: [
        {
          address: "10.244.1.1",
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: LONG,
          zone: "zone-1",
          targetRef: { kind: "Pod", name: "pod-10.244.1.1", namespace: "default", uid: "uid-10.244.1.1" },
        },
      ],
    });
  });

  it("takes the node from the annotation, then from the endpoints, never from the (hashed) node label", () => {
    const slice = written(LONG);
    expect(slice.metadata?.labels?.[LABEL_NODE]).toBe(nodeLabelValue(LONG));
    expect(nodeLabelValue(LONG)).not.toBe(LONG);
    const older = edit(slice, (s) => {
      delete s.metadata?.annotations?.[ANNOTATION_NODE_NAME];
    });
    expect(readSlice(older)?.nodeName).toBe(LONG);
    const noIdentity = edit(older, (s) => {
      s.endpoints = [];
    });
    expect(readSlice(noIdentity)).toBeUndefined();
  });

  it.each<[string, (s: V1EndpointSlice) => void]>([
    [
      "managed by someone else",
      (s) => {
        (s.metadata?.labels ?? {})[LABEL_MANAGED_BY] = "other";
      },
    ],
    ["no service-name label", (s) => void delete s.metadata?.labels?.[LABEL_SERVICE_NAME]],
    ["no namespace", (s) => void delete s.metadata?.namespace],
    ["two ports", (s) => void s.ports?.push({ name: "b", port: 1 })],
    ["no ports", (s) => void delete s.ports],
    ["a port without a number", (s) => void delete s.ports?.[0]?.port],
    [
      "an FQDN slice",
      (s) => {
        s.addressType = "FQDN";
      },
    ],
    ["no metadata", (s) => void delete s.metadata],
  ])("returns undefined, without throwing, for a slice with %s", (_name, change) => {
    expect(readSlice(edit(written(), change))).toBeUndefined();
  });

  it.each([
    ["not JSON", "{not json"],
    ["an array", "[1,2]"],
    ["entries without a reason", JSON.stringify({ "10.244.1.1": { probe: "p" } })],
    ["an entry that is a string", JSON.stringify({ "10.244.1.1": "Timeout" })],
  ])("reads a reasons annotation that is %s as no reasons", (_name, raw) => {
    const view = readSlice(
      edit(written(), (s) => {
        (s.metadata as { annotations: Record<string, string> }).annotations[ANNOTATION_ENDPOINT_REASONS] =
          raw;
      }),
    );
    expect(view?.endpoints[0]?.reason).toBeUndefined();
  });

  it("applies EndpointSlice semantics to absent conditions and skips endpoints without an address", () => {
    const view = readSlice(
      edit(written(), (s) => {
        s.endpoints = [
          { addresses: ["10.244.1.1"] },
          { addresses: ["10.244.1.2"], conditions: { ready: false } },
          { addresses: [] },
        ];
      }),
    );
    expect(view?.endpoints.map((e) => [e.address, e.conditions])).toEqual([
      ["10.244.1.1", { ready: true, serving: true, terminating: false }],
      ["10.244.1.2", { ready: false, serving: false, terminating: false }],
    ]);
  });
});
