import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { EndpointGroup } from "@swh/aggregation";
import { LABEL_MANAGED_BY } from "@swh/crd-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOwnedSlice, type PlanSlicesInput, planSlices, sliceLabels } from "../src/index.js";
import { anEndpoint, anInput, applyToModel, deepFreeze, nodeName, swh } from "./builders.js";

const KEYS = [
  { portName: "http", port: 8080, protocol: "TCP", addressFamily: "IPv4" },
  { portName: "http", port: 8081, protocol: "TCP", addressFamily: "IPv4" },
  { portName: "dns", port: 53, protocol: "UDP", addressFamily: "IPv4" },
  { portName: "", port: 8080, protocol: "TCP", addressFamily: "IPv6" },
] as const;

const addressOf = (family: string, i: number) =>
  family === "IPv6" ? `fd00:10:244::1:${i}` : `10.244.1.${i}`;

const conditionsArb = fc.record({ ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() });

const groupsArb: fc.Arbitrary<EndpointGroup[]> = fc
  .subarray([...KEYS.keys()])
  .chain((keyIndexes) =>
    fc.tuple(
      ...keyIndexes.map((k) =>
        fc
          .uniqueArray(
            fc.tuple(fc.integer({ min: 1, max: 12 }), conditionsArb, fc.constantFrom("z1", "z2")),
            {
              selector: ([i]) => i,
              maxLength: 12,
            },
          )
          .map((eps) => {
            const key = KEYS[k] as (typeof KEYS)[number];
            const group: EndpointGroup = {
              portName: key.portName,
              port: key.port,
              protocol: key.protocol,
              addressFamily: key.addressFamily,
              endpoints: eps.map(([i, conditions, zone]) =>
                anEndpoint(addressOf(key.addressFamily, i), { conditions, zone }),
              ),
            };
            if (k === 0) group.appProtocol = "http";
            return group;
          }),
      ),
    ),
  )
  .map((groups) => groups.filter((g) => g.endpoints.length > 0));

/** Slices an older agent, a crash mid-plan or a concurrent writer could have left: any content, our labels. */
const rawOwnedArb: fc.Arbitrary<V1EndpointSlice[]> = fc
  .array(
    fc.record({
      k: fc.integer({ min: 0, max: KEYS.length - 1 }),
      addrs: fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 8 }),
      ready: fc.boolean(),
    }),
    { maxLength: 3 },
  )
  .map((raws) =>
    raws.map(({ k, addrs, ready }, i) => {
      const key = KEYS[k] as (typeof KEYS)[number];
      return {
        metadata: {
          name: `raw-${i}`,
          namespace: swh.namespace,
          resourceVersion: `r${i}`,
          labels: sliceLabels({
            swhName: swh.name,
            nodeName,
            portName: key.portName,
            addressFamily: key.addressFamily,
          }),
        },
        addressType: key.addressFamily,
        ports: [{ name: key.portName, port: key.port, protocol: key.protocol }],
        // As an older agent wrote them: the node named by the endpoints, not yet by the annotation.
        endpoints: addrs.map((a) => ({
          addresses: [addressOf(key.addressFamily, a)],
          conditions: { ready },
          nodeName,
        })),
      };
    }),
  );

const foreignArb: fc.Arbitrary<V1EndpointSlice[]> = fc
  .array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 })
  .map((addrs) =>
    addrs.length === 0
      ? []
      : [
          {
            metadata: {
              name: "web-foreign",
              namespace: swh.namespace,
              resourceVersion: "f1",
              labels: {
                ...sliceLabels({ swhName: swh.name, nodeName, portName: "http", addressFamily: "IPv4" }),
                [LABEL_MANAGED_BY]: "someone-else",
              },
            },
            addressType: "IPv4",
            ports: [{ name: "http", port: 8080, protocol: "TCP" }],
            endpoints: addrs.map((a) => ({ addresses: [addressOf("IPv4", a)] })),
          },
        ],
  );

/**
 * Hundreds of synchronous cases: about a second on an idle machine, many times that on a loaded 2-core CI runner
 * where every suite runs at once. The timeout is sized for that load; it bounds slowness only (a property that
 * fails still fails at once, with its shrunk counterexample).
 */
const PROPERTY_TIMEOUT_MS = 120_000;

const maxArb = fc.integer({ min: 1, max: 4 });

/** A world: desired groups, the slices that exist (a previous plan's result, leftovers, foreign ones), a limit. */
const worldArb = fc
  .record({
    previous: groupsArb,
    previousMax: maxArb,
    groups: groupsArb,
    max: maxArb,
    raw: rawOwnedArb,
    foreign: foreignArb,
  })
  .map(({ previous, previousMax, groups, max, raw, foreign }) => {
    const earlier = applyToModel(
      [],
      planSlices(anInput({ groups: previous, maxEndpointsPerSlice: previousMax })),
    );
    return deepFreeze(
      anInput({ groups, maxEndpointsPerSlice: max, existing: [...earlier, ...raw, ...foreign] }),
    );
  });

/** Per slice key, the endpoints the owned slices hold, sorted by address. */
function published(slices: readonly V1EndpointSlice[]) {
  const byKey = new Map<string, unknown[]>();
  for (const slice of slices.filter((s) => isOwnedSlice(s, { nodeName, swhName: swh.name }))) {
    const p = slice.ports?.[0];
    const k = `${p?.name}/${p?.port}/${p?.protocol}/${p?.appProtocol}/${slice.addressType}`;
    byKey.set(k, [...(byKey.get(k) ?? []), ...(slice.endpoints ?? [])]);
  }
  return new Map([...byKey].map(([k, eps]) => [k, sortByAddress(eps as { addresses: string[] }[])]));
}

function desiredPublished(groups: readonly EndpointGroup[]) {
  return new Map(
    groups.map((g) => [
      `${g.portName}/${g.port}/${g.protocol}/${g.appProtocol}/${g.addressFamily}`,
      sortByAddress(
        g.endpoints.map((e) => ({
          addresses: [e.address],
          conditions: e.conditions,
          nodeName: e.nodeName,
          zone: e.zone,
          targetRef: e.targetRef,
        })),
      ),
    ]),
  );
}

function sortByAddress<T extends { addresses: string[] }>(eps: T[]): T[] {
  return [...eps].sort((a, b) => ((a.addresses[0] ?? "") < (b.addresses[0] ?? "") ? -1 : 1));
}

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe("planSlices properties", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it("applying the plan yields exactly the desired endpoints, within the size limit", () => {
    fc.assert(
      fc.property(worldArb, (input: PlanSlicesInput) => {
        const result = applyToModel(input.existing, planSlices(input));
        expect(published(result)).toEqual(desiredPublished(input.groups));
        for (const slice of result.filter((s) => isOwnedSlice(s, { nodeName, swhName: swh.name }))) {
          expect(slice.endpoints?.length ?? 0).toBeGreaterThan(0);
          expect(slice.endpoints?.length ?? 0).toBeLessThanOrEqual(input.maxEndpointsPerSlice ?? 100);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("planning again after applying yields an empty plan", () => {
    fc.assert(
      fc.property(worldArb, (input) => {
        const result = applyToModel(input.existing, planSlices(input));
        const again = planSlices({ ...input, existing: result });
        expect(again).toEqual({ create: [], update: [], delete: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("never writes a slice it does not own", () => {
    fc.assert(
      fc.property(worldArb, (input) => {
        const plan = planSlices(input);
        for (const slice of [...plan.update, ...plan.delete]) {
          expect(isOwnedSlice(slice, { nodeName, swhName: swh.name })).toBe(true);
          expect(slice.metadata?.name).not.toBe("web-foreign");
        }
      }),
      { numRuns: 200 },
    );
  });

  it("does not depend on the order of its inputs", () => {
    fc.assert(
      fc.property(worldArb, fc.integer(), (input, seed) => {
        const shuffled: PlanSlicesInput = {
          ...input,
          groups: shuffle(input.groups, seed).map((g) => ({
            ...g,
            endpoints: shuffle(g.endpoints, seed + 1),
          })),
          existing: shuffle(input.existing, seed + 2).map((s) => ({
            ...s,
            endpoints: shuffle(s.endpoints ?? [], seed + 3),
          })),
        };
        // Deletes are the existing objects themselves (the applier needs their version): compare them by name.
        const normalized = (plan: ReturnType<typeof planSlices>) => ({
          ...plan,
          delete: plan.delete.map((s) => s.metadata?.name),
        });
        expect(normalized(planSlices(shuffled))).toEqual(normalized(planSlices(input)));
      }),
      { numRuns: 200 },
    );
  });
});
