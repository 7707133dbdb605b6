import type { V1EndpointSlice } from "@kubernetes/client-node";
import {
  ANNOTATION_ENDPOINT_REASONS,
  ANNOTATION_NODE_NAME,
  LABEL_HEADLESS,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_PROXY_NAME,
} from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { isOwnedSlice, type PlanSlicesInput, planSlices, readSlice } from "../src/index.js";
import {
  addresses,
  aGroup,
  anEndpoint,
  anInput,
  applyToModel,
  contents,
  counts,
  deepFreeze,
  existingFor,
  nodeName,
} from "./builders.js";

const group = (n: number, from = 1) => aGroup({ endpoints: addresses(n, from).map((a) => anEndpoint(a)) });

/** Rewrites one existing slice (as a concurrent writer or an older agent version could have left it). */
function tamper(
  slices: V1EndpointSlice[],
  change: (s: V1EndpointSlice) => V1EndpointSlice,
): V1EndpointSlice[] {
  const [first, ...rest] = slices;
  return first === undefined ? [] : [change(structuredClone(first)), ...rest];
}

interface Case {
  name: string;
  input: PlanSlicesInput;
  /** `create/update/delete` counts. */
  plan: string;
  /** Slice contents after applying the plan. */
  after: string[];
}

const cases: Case[] = [
  {
    name: "creates one slice per group when nothing exists",
    input: anInput({
      groups: [
        group(2),
        aGroup({ portName: "dns", port: 53, protocol: "UDP", endpoints: [anEndpoint("10.244.1.1")] }),
      ],
    }),
    plan: "2/0/0",
    after: ["53/IPv4: 10.244.1.1", "8080/IPv4: 10.244.1.1,10.244.1.2"],
  },
  {
    name: "does nothing when the slices already match",
    input: anInput({ groups: [group(3)], existing: existingFor(anInput({ groups: [group(3)] })) }),
    plan: "0/0/0",
    after: ["8080/IPv4: 10.244.1.1,10.244.1.2,10.244.1.3"],
  },
  {
    name: "does nothing when only the order of endpoints differs",
    input: anInput({
      groups: [
        aGroup({
          endpoints: addresses(3)
            .reverse()
            .map((a) => anEndpoint(a)),
        }),
      ],
      existing: tamper(existingFor(anInput({ groups: [group(3)] })), (s) => ({
        ...s,
        endpoints: [...(s.endpoints ?? [])].reverse(),
      })),
    }),
    plan: "0/0/0",
    after: ["8080/IPv4: 10.244.1.1,10.244.1.2,10.244.1.3"],
  },
  {
    name: "updates in place when a condition changes",
    input: anInput({
      groups: [
        aGroup({
          endpoints: [
            anEndpoint("10.244.1.1", { conditions: { ready: false, serving: false, terminating: false } }),
          ],
        }),
      ],
      existing: existingFor(anInput({ groups: [group(1)] })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1"],
  },
  {
    name: "fills the existing slice with a new endpoint instead of creating one",
    input: anInput({ groups: [group(3)], existing: existingFor(anInput({ groups: [group(2)] })) }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1,10.244.1.2,10.244.1.3"],
  },
  {
    name: "reuses an emptied slice for new endpoints (update, not delete + create)",
    input: anInput({ groups: [group(2, 10)], existing: existingFor(anInput({ groups: [group(2)] })) }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.10,10.244.1.11"],
  },
  {
    name: "splits at maxEndpointsPerSlice",
    input: anInput({ groups: [group(5)], maxEndpointsPerSlice: 2 }),
    plan: "3/0/0",
    after: ["8080/IPv4: 10.244.1.1,10.244.1.2", "8080/IPv4: 10.244.1.3,10.244.1.4", "8080/IPv4: 10.244.1.5"],
  },
  {
    name: "splits a slice that is over a lowered limit",
    input: anInput({
      groups: [group(3)],
      maxEndpointsPerSlice: 2,
      existing: existingFor(anInput({ groups: [group(3)] })),
    }),
    plan: "1/1/0",
    after: ["8080/IPv4: 10.244.1.1,10.244.1.2", "8080/IPv4: 10.244.1.3"],
  },
  {
    name: "shrinks: keeps the slice that still has endpoints, deletes the emptied ones",
    input: anInput({
      groups: [group(1)],
      maxEndpointsPerSlice: 2,
      existing: existingFor(anInput({ groups: [group(5)], maxEndpointsPerSlice: 2 })),
    }),
    plan: "0/1/2",
    after: ["8080/IPv4: 10.244.1.1"],
  },
  {
    name: "deletes every slice when nothing is desired",
    input: anInput({ groups: [], existing: existingFor(anInput({ groups: [group(2)] })) }),
    plan: "0/0/1",
    after: [],
  },
  {
    name: "replaces the slice when the resolved port changes",
    input: anInput({
      groups: [aGroup({ port: 8081, endpoints: [anEndpoint("10.244.1.1")] })],
      existing: existingFor(anInput({ groups: [group(1)] })),
    }),
    plan: "1/0/1",
    after: ["8081/IPv4: 10.244.1.1"],
  },
  {
    name: "updates in place when the appProtocol changes",
    input: anInput({
      groups: [aGroup({ appProtocol: "http", endpoints: [anEndpoint("10.244.1.1")] })],
      existing: existingFor(anInput({ groups: [group(1)] })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1"],
  },
  {
    name: "keeps address families in separate slices",
    input: anInput({
      groups: [group(1), aGroup({ addressFamily: "IPv6", endpoints: [anEndpoint("fd00:10:244::1:1")] })],
    }),
    plan: "2/0/0",
    after: ["8080/IPv4: 10.244.1.1", "8080/IPv6: fd00:10:244::1:1"],
  },
  {
    name: "removes an address that appears in two of its slices from the later one",
    input: anInput({
      groups: [group(2)],
      maxEndpointsPerSlice: 1,
      existing: tamper(existingFor(anInput({ groups: [group(2)], maxEndpointsPerSlice: 1 })), (s) => ({
        ...s,
        endpoints: [...(s.endpoints ?? []), { addresses: ["10.244.1.2"], conditions: { ready: true } }],
      })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1", "8080/IPv4: 10.244.1.2"],
  },
  {
    name: "restores our labels and controller reference when they were changed",
    input: anInput({
      groups: [group(1)],
      existing: tamper(existingFor(anInput({ groups: [group(1)] })), (s) => ({
        ...s,
        metadata: {
          ...s.metadata,
          ownerReferences: [
            { apiVersion: "v1", kind: "Service", name: "web", uid: "other", controller: true },
          ],
        },
      })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1"],
  },
  {
    name: "adds the headless and service-proxy-name labels when the Service gets them",
    input: anInput({
      groups: [group(1)],
      serviceLabels: { headless: true, serviceProxyName: "my-proxy" },
      existing: existingFor(anInput({ groups: [group(1)] })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1"],
  },
  {
    name: "removes the headless label when the Service loses it",
    input: anInput({
      groups: [group(1)],
      existing: existingFor(anInput({ groups: [group(1)], serviceLabels: { headless: true } })),
    }),
    plan: "0/1/0",
    after: ["8080/IPv4: 10.244.1.1"],
  },
];

describe("planSlices", () => {
  it.each(cases)("$name", ({ input, plan: expectedCounts, after }) => {
    const frozen = deepFreeze(structuredClone(input));
    const plan = planSlices(frozen);
    expect(counts(plan)).toBe(expectedCounts);
    const result = applyToModel(frozen.existing, plan);
    expect(contents(result)).toEqual(after);
    expect(counts(planSlices({ ...frozen, existing: result }))).toBe("0/0/0");
  });

  it("leaves slices it does not own untouched", () => {
    const ours = existingFor(anInput({ groups: [group(1)] }));
    const relabel = (labels: Record<string, string>, name: string) =>
      ours.map((s) => ({
        ...s,
        metadata: { ...s.metadata, name, labels: { ...s.metadata?.labels, ...labels } },
      }));
    const foreign = [
      ...relabel({ [LABEL_MANAGED_BY]: "endpointslice-controller.k8s.io" }, "foreign-controller"),
      ...relabel({ [LABEL_NODE]: "node-b" }, "other-node"),
      ...relabel({ [LABEL_SERVICE_NAME]: "other-swh" }, "other-swh"),
      ...ours.map((s) => ({
        ...s,
        metadata: { ...s.metadata, name: "other-namespace", namespace: "kube-system" },
      })),
    ];
    const plan = planSlices(deepFreeze(anInput({ groups: [], existing: [...foreign, ...ours] })));
    expect(plan.delete.map((s) => s.metadata?.name)).toEqual([ours[0]?.metadata?.name]);
    expect(counts(plan)).toBe("0/0/1");
  });

  it("writes the labels, controller reference, port and endpoint fields of SPEC §4", () => {
    const plan = planSlices(
      deepFreeze(
        anInput({
          groups: [aGroup({ appProtocol: "kubernetes.io/h2c", endpoints: [anEndpoint("10.244.1.1")] })],
          serviceLabels: { headless: true, serviceProxyName: "alt" },
        }),
      ),
    );
    const [slice] = plan.create;
    expect(slice?.metadata?.labels).toEqual({
      [LABEL_SERVICE_NAME]: "web",
      [LABEL_MANAGED_BY]: "service-with-healthchecks.network.deckhouse.io",
      [LABEL_NODE]: nodeName,
      "network.deckhouse.io/swh-port": "http",
      "network.deckhouse.io/swh-address-family": "IPv4",
      [LABEL_HEADLESS]: "",
      [LABEL_SERVICE_PROXY_NAME]: "alt",
    });
    expect(slice?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "network.deckhouse.io/v1alpha1",
        kind: "ServiceWithHealthchecks",
        name: "web",
        uid: "swh-uid",
        controller: true,
      },
    ]);
    expect(slice?.metadata?.annotations).toEqual({ [ANNOTATION_NODE_NAME]: nodeName });
    expect(slice?.addressType).toBe("IPv4");
    expect(slice?.ports).toEqual([
      { name: "http", port: 8080, protocol: "TCP", appProtocol: "kubernetes.io/h2c" },
    ]);
    expect(slice?.endpoints).toEqual([
      {
        addresses: ["10.244.1.1"],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName,
        zone: "zone-1",
        targetRef: { kind: "Pod", name: "pod-10.244.1.1", namespace: "default", uid: "uid-10.244.1.1" },
      },
    ]);
  });

  it("keeps foreign labels, annotations and the resourceVersion of a slice it updates", () => {
    const existing = tamper(existingFor(anInput({ groups: [group(1)] })), (s) => ({
      ...s,
      metadata: { ...s.metadata, labels: { ...s.metadata?.labels, team: "a" }, annotations: { note: "x" } },
    }));
    const [updated] = planSlices(deepFreeze(anInput({ groups: [group(2)], existing }))).update;
    expect(updated?.metadata?.name).toBe(existing[0]?.metadata?.name);
    expect(updated?.metadata?.resourceVersion).toBe(existing[0]?.metadata?.resourceVersion);
    expect(updated?.metadata?.labels?.team).toBe("a");
    expect(updated?.metadata?.annotations).toEqual({ note: "x", [ANNOTATION_NODE_NAME]: nodeName });
  });

  it("rejects a maxEndpointsPerSlice below 1, naming it", () => {
    expect(() => planSlices(anInput({ maxEndpointsPerSlice: 0 }))).toThrow(/maxEndpointsPerSlice/);
  });

  it("annotates a new slice with the failing probe and reason of each failing address only", () => {
    const failing = anEndpoint("10.244.1.6", {
      conditions: { ready: false, serving: false, terminating: false },
      failure: {
        probeIndex: 0,
        failingProbe: "HTTP :8080 /healthz",
        reason: "HTTPStatus",
        message: "status 503",
        targetId: "t-6",
      },
    });
    const [slice] = planSlices(
      deepFreeze(anInput({ groups: [aGroup({ endpoints: [anEndpoint("10.244.1.5"), failing] })] })),
    ).create;
    // Byte for byte what agents wrote before the planner owned the annotation: an upgrade rewrites nothing.
    expect(slice?.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS]).toBe(
      '{"10.244.1.6":{"probe":"HTTP :8080 /healthz","reason":"HTTPStatus","message":"status 503","target":"t-6"}}',
    );
  });

  it("updates a slice whose endpoints are unchanged but whose reason changed, and drops the reasons when all pass", () => {
    const withReason = (reason: string | undefined) => [
      aGroup({
        endpoints: [
          anEndpoint("10.244.1.5", {
            conditions: { ready: false, serving: false, terminating: false },
            ...(reason === undefined
              ? {}
              : {
                  failure: {
                    probeIndex: 0,
                    failingProbe: "TCP :8080",
                    reason,
                    message: reason,
                    targetId: "t",
                  },
                }),
          }),
        ],
      }),
    ];
    const created = applyToModel([], planSlices(anInput({ groups: withReason("Timeout") })));
    expect(planSlices(anInput({ groups: withReason("Timeout"), existing: created }))).toEqual({
      create: [],
      update: [],
      delete: [],
    });
    const changed = planSlices(anInput({ groups: withReason("ConnectionRefused"), existing: created }));
    expect(counts(changed)).toBe("0/1/0");
    expect(readSlice(changed.update[0] as V1EndpointSlice)?.endpoints[0]?.reason?.reason).toBe(
      "ConnectionRefused",
    );
    const cleared = planSlices(anInput({ groups: withReason(undefined), existing: created }));
    expect(counts(cleared)).toBe("0/1/0");
    expect(cleared.update[0]?.metadata?.annotations?.[ANNOTATION_ENDPOINT_REASONS]).toBeUndefined();
  });

  it("reads a slice of an older agent (no node annotation) as its own, and adds the annotation with its next write only", () => {
    const older = tamper(existingFor(anInput({ groups: [group(2)] })), (s) => ({
      ...s,
      metadata: { ...s.metadata, annotations: {} },
    }));
    expect(isOwnedSlice(older[0] as V1EndpointSlice, { nodeName })).toBe(true);
    expect(planSlices(deepFreeze(anInput({ groups: [group(2)], existing: older })))).toEqual({
      create: [],
      update: [],
      delete: [],
    });
    const [updated] = planSlices(deepFreeze(anInput({ groups: [group(3)], existing: older }))).update;
    expect(updated?.metadata?.annotations?.[ANNOTATION_NODE_NAME]).toBe(nodeName);
  });

  it("owns a slice by the full node name it carries, not by its (hashed) node label", () => {
    const long = `${"n".repeat(63)}.example.internal`;
    const other = `${"n".repeat(63)}.example.internal2`;
    const input = anInput({
      nodeName: long,
      groups: [aGroup({ endpoints: [anEndpoint("10.244.1.1", { nodeName: long })] })],
    });
    const [slice] = planSlices(input).create as V1EndpointSlice[];
    expect(isOwnedSlice(slice as V1EndpointSlice, { nodeName: long, swhName: "web" })).toBe(true);
    expect(isOwnedSlice(slice as V1EndpointSlice, { nodeName: other })).toBe(false);
    // A slice carrying our label for `long` but naming another node is not ours: never written, never deleted.
    const claimed = deepFreeze({
      ...slice,
      metadata: { ...slice?.metadata, annotations: { [ANNOTATION_NODE_NAME]: other } },
    }) as V1EndpointSlice;
    expect(isOwnedSlice(claimed, { nodeName: long })).toBe(false);
    expect(planSlices(anInput({ nodeName: long, groups: [], existing: [claimed] }))).toEqual({
      create: [],
      update: [],
      delete: [],
    });
  });
});
