import type { DefaultedServicePort } from "@swh/crd-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Aggregation,
  aggregateEndpoints,
  type PodInfo,
  planProbeTargets,
  type SwhInput,
} from "../src/index.js";
import { anHttpProbe, aPod, aSwh, aTcpProbe, deepFreeze, noZone } from "./builders.js";

/**
 * Hundreds of synchronous cases: about a second on an idle machine, many times that on a loaded 2-core CI runner
 * where every suite runs at once. The timeout is sized for that load; it bounds slowness only (a property that
 * fails still fails at once, with its shrunk counterexample).
 */
const PROPERTY_TIMEOUT_MS = 120_000;

const PORTS: DefaultedServicePort[] = [
  { name: "http", protocol: "TCP", port: 80, targetPort: 8080 },
  { name: "metrics", protocol: "TCP", port: 9090, targetPort: "metrics" },
  { name: "dns", protocol: "UDP", port: 53, targetPort: 53 },
];
const PROBES = [aTcpProbe(8080), anHttpProbe(8080), aTcpProbe("metrics"), aTcpProbe(53)];

const podArb = (i: number): fc.Arbitrary<PodInfo> =>
  fc
    .record({
      ready: fc.boolean(),
      terminating: fc.boolean(),
      dualStack: fc.boolean(),
      metricsPort: fc.constantFrom(9090, 9091),
    })
    .map(({ ready, terminating, dualStack, metricsPort }) =>
      aPod({
        name: `web-${i}`,
        uid: `uid-${i}`,
        ready,
        terminating,
        ips: dualStack ? [`10.244.1.${i}`, `fd00:10:244::1:${i}`] : [`10.244.1.${i}`],
        containerPorts: [
          { name: "http", containerPort: 8080, protocol: "TCP" },
          { name: "metrics", containerPort: metricsPort, protocol: "TCP" },
          { name: "dns", containerPort: 53, protocol: "UDP" },
        ],
      }),
    );

const worldArb = fc
  .record({
    ports: fc.subarray(PORTS, { minLength: 1 }),
    probes: fc.subarray(PROBES),
    publishNotReady: fc.boolean(),
    pods: fc
      .integer({ min: 1, max: 6 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => podArb(i + 1)))),
    verdicts: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  })
  .map(({ ports, probes, publishNotReady, pods, verdicts }) => {
    const swh = aSwh({ spec: { ports, publishNotReadyAddresses: publishNotReady }, probes });
    const targets = planProbeTargets([swh], pods);
    const states = new Map(
      targets.map((t, i) => [t.id, { passing: verdicts[i % verdicts.length] === true }]),
    );
    return deepFreeze({ swh, pods, targets, states });
  });

/** Every published endpoint as `port/family/address → r s t`. */
function flatten(result: Aggregation): Map<string, string> {
  const out = new Map<string, string>();
  for (const g of result.groups) {
    for (const e of g.endpoints) {
      const c = e.conditions;
      out.set(
        `${g.portName}/${g.port}/${g.addressFamily}/${e.address}`,
        `${c.ready} ${c.serving} ${c.terminating}`,
      );
    }
  }
  return out;
}

const aggregate = (
  swh: SwhInput,
  pods: readonly PodInfo[],
  states: ReadonlyMap<string, { passing: boolean }>,
) => aggregateEndpoints(swh, pods, states, noZone);

describe("aggregateEndpoints properties", { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it("a probe changing state only affects its own address on the ports with its port number", () => {
    fc.assert(
      fc.property(worldArb, fc.nat(), ({ swh, pods, targets, states }, pick) => {
        fc.pre(targets.length > 0);
        const target = targets[pick % targets.length];
        if (target === undefined) return;
        const flipped = new Map(states);
        flipped.set(target.id, { passing: !states.get(target.id)?.passing });
        const before = flatten(aggregate(swh, pods, states));
        const after = flatten(aggregate(swh, pods, flipped));
        expect([...after.keys()]).toEqual([...before.keys()]);
        for (const [key, value] of before) {
          const [, port, , address] = key.split("/");
          if (address !== target.address || Number(port) !== target.port) expect(after.get(key)).toBe(value);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the condition rules of SPEC §3.4", () => {
    fc.assert(
      fc.property(worldArb, ({ swh, pods, states }) => {
        const byAddress = new Map(pods.flatMap((p) => p.ips.map((ip) => [ip, p] as const)));
        for (const group of aggregate(swh, pods, states).groups) {
          for (const { address, conditions: c } of group.endpoints) {
            const pod = byAddress.get(address) as PodInfo;
            expect(c.terminating).toBe(pod.terminating);
            if (c.serving) expect(pod.ready).toBe(true);
            if (swh.spec.publishNotReadyAddresses) expect(c.ready).toBe(true);
            else expect(c.ready).toBe(c.serving && !c.terminating);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("does not depend on the order of pods", () => {
    fc.assert(
      fc.property(worldArb, ({ swh, pods, states }) => {
        expect(aggregate(swh, [...pods].reverse(), states)).toEqual(aggregate(swh, pods, states));
      }),
      { numRuns: 200 },
    );
  });
});
