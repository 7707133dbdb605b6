/**
 * The slice contract as a round trip (ADR 0013): whatever `planSlices` writes, `readSlice` reads back — the SWH,
 * the full node name (1 to 253 characters, any valid DNS subdomain), each port, and every endpoint with its
 * conditions and its failure reason — both for new slices and after updates of existing ones.
 */
import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
import type { ProbeFailureReason } from "@swh/crd-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOwnedSlice, planSlices, readSlice, type SliceView } from "../src/index.js";
import { anEndpoint, applyToModel, swh } from "./builders.js";

/** Every reason a probe or the aggregation reports; a reason added to the type must be added here to compile. */
const REASONS: Record<ProbeFailureReason, true> = {
  ConnectionRefused: true,
  ConnectionReset: true,
  Timeout: true,
  HTTPStatus: true,
  HTTPBody: true,
  TLSError: true,
  AuthFailed: true,
  QueryFalse: true,
  QueryError: true,
  ProtocolError: true,
  DNSError: true,
  CredentialsMissing: true,
  CredentialsInvalid: true,
  PortNotFound: true,
  UnsupportedMode: true,
  CredentialsNotPermitted: true,
  NotProbedYet: true,
  Error: true,
};
const ALL_REASONS = Object.keys(REASONS) as ProbeFailureReason[];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const labelArb = fc.stringMatching(DNS_LABEL);
/** Node names: valid DNS subdomains of 1 to 253 characters, with the lengths at the limits always in the mix. */
const nodeNameArb = fc.oneof(
  fc
    .array(labelArb, { minLength: 1, maxLength: 6 })
    .map((labels) => labels.join("."))
    .filter((name) => name.length <= 253),
  fc.constantFrom(
    "n",
    "a".repeat(63),
    `${"a".repeat(63)}.b`,
    `worker-${"a".repeat(30)}.zone-b.cluster.example.internal`,
    [`${"b".repeat(63)}`, `${"c".repeat(63)}`, `${"d".repeat(63)}`, `${"e".repeat(61)}`].join("."),
  ),
);

const KEYS = [
  { portName: "http", port: 8080, protocol: "TCP", addressFamily: "IPv4" },
  { portName: "", port: 5432, protocol: "TCP", addressFamily: "IPv6" },
  { portName: "dns", port: 53, protocol: "UDP", addressFamily: "IPv4" },
] as const;
const addressOf = (family: string, i: number) =>
  family === "IPv6" ? `fd00:10:244::1:${i}` : `10.244.1.${i}`;

const failureArb = fc.record({
  probeIndex: fc.nat(5),
  failingProbe: fc.string({ maxLength: 40 }),
  reason: fc.constantFrom(...ALL_REASONS),
  message: fc.string({ maxLength: 200, unit: "binary" }),
  targetId: fc.string({ minLength: 1, maxLength: 30 }),
});
const endpointArb = fc.record({
  i: fc.integer({ min: 1, max: 40 }),
  conditions: fc.record({ ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() }),
  failure: fc.option(failureArb, { nil: undefined }),
});

function groupsArb(nodeName: string): fc.Arbitrary<EndpointGroup[]> {
  return fc
    .tuple(
      ...KEYS.map((key) =>
        fc.uniqueArray(endpointArb, { selector: (e) => e.i, maxLength: 12 }).map(
          (eps): EndpointGroup => ({
            ...key,
            endpoints: eps.map(({ i, conditions, failure }) =>
              anEndpoint(addressOf(key.addressFamily, i), {
                conditions,
                nodeName,
                ...(failure === undefined ? {} : { failure }),
              }),
            ),
          }),
        ),
      ),
    )
    .map((groups) => groups.filter((g) => g.endpoints.length > 0));
}

const worldArb = nodeNameArb.chain((nodeName) =>
  fc.record({
    nodeName: fc.constant(nodeName),
    before: groupsArb(nodeName),
    after: groupsArb(nodeName),
    max: fc.integer({ min: 1, max: 5 }),
  }),
);

/** What the reader must return for `groups`: per slice key, the endpoints with their reasons, by address. */
function expected(groups: readonly EndpointGroup[], nodeName: string) {
  return new Map(
    groups.map((g) => [
      `${g.portName}/${g.port}/${g.protocol}/${g.addressFamily}`,
      g.endpoints
        .map((e) => ({
          swh: [swh.name, swh.namespace, nodeName],
          address: e.address,
          conditions: e.conditions,
          nodeName: e.nodeName,
          zone: e.zone,
          targetRef: e.targetRef,
          reason:
            e.failure === undefined
              ? undefined
              : {
                  probe: e.failure.failingProbe,
                  reason: e.failure.reason,
                  message: e.failure.message,
                  target: e.failure.targetId,
                },
        }))
        .sort((a, b) => (a.address < b.address ? -1 : 1)),
    ]),
  );
}

/** What the reader returns for `slices`, in the shape of `expected`. */
function read(slices: readonly V1EndpointSlice[]) {
  const views = slices.map((s) => readSlice(s));
  expect(views).not.toContain(undefined);
  const byKey = new Map<string, unknown[]>();
  for (const view of views as SliceView[]) {
    const key = `${view.portName}/${view.port}/${view.protocol}/${view.addressFamily}`;
    for (const e of view.endpoints) {
      byKey.set(key, [
        ...(byKey.get(key) ?? []),
        {
          swh: [view.swhName, view.namespace, view.nodeName],
          address: e.address,
          conditions: e.conditions,
          nodeName: e.nodeName,
          zone: e.zone,
          targetRef: e.targetRef,
          reason: e.reason,
        },
      ]);
    }
  }
  return new Map(
    [...byKey].map(([k, eps]) => [
      k,
      (eps as { address: string }[]).sort((a, b) => (a.address < b.address ? -1 : 1)),
    ]),
  );
}

describe("the slice contract", { timeout: 120_000 }, () => {
  it("reads back what planSlices wrote, for node names of 1 to 253 characters and every reason", () => {
    fc.assert(
      fc.property(worldArb, ({ nodeName, before, after, max }) => {
        const input = { swh, nodeName, maxEndpointsPerSlice: max };
        const first = applyToModel([], planSlices({ ...input, groups: before, existing: [] }));
        expect(read(first)).toEqual(expected(before, nodeName));
        const second = applyToModel(first, planSlices({ ...input, groups: after, existing: first }));
        expect(read(second)).toEqual(expected(after, nodeName));
        for (const slice of second) {
          expect(isOwnedSlice(slice, { nodeName, swhName: swh.name })).toBe(true);
          expect(Object.values(slice.metadata?.labels ?? {}).every((v) => v.length <= 63)).toBe(true);
          expect(slice.metadata?.name?.length).toBeLessThanOrEqual(253);
        }
      }),
      { numRuns: 200 },
    );
  });
});
