import type { DefaultedProbeSpec } from "@swh/crd-types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anHttpProbe, aPod, aPort, aSwhObject, aTcpProbe } from "./builders.js";
import { restartSeeds, World } from "./support/world.js";

// A pool of probes on the two ports; equal entries across SWHs share a target, different ones do not.
const PROBES: DefaultedProbeSpec[] = [
  aTcpProbe(8080),
  aTcpProbe(8080, { failureThreshold: 2 }),
  anHttpProbe(8080, "/a"),
  anHttpProbe(8080, "/b"),
  aTcpProbe(9090),
  anHttpProbe(9090, "/c"),
];
const REASONS = ["ConnectionRefused", "Timeout", "HTTPStatus", "CredentialsMissing"] as const;

const podArb = fc.record({ ready: fc.boolean(), terminating: fc.boolean() });
const swhArb = fc.record({
  probes: fc
    .subarray(
      PROBES.map((_, i) => i),
      { minLength: 0, maxLength: 4 },
    )
    .chain((idx) => fc.shuffledSubarray(idx, { minLength: idx.length })),
  publishNotReadyAddresses: fc.boolean(),
});
const stateArb = fc.oneof(
  fc.constant(undefined),
  fc.constant({ passing: true }),
  fc.record({
    passing: fc.constant(false),
    reason: fc.constantFrom(...REASONS),
    message: fc.constantFrom("m1", "m2"),
  }),
);

describe("restart from published slices (property)", () => {
  it("reproduces the published slices exactly: no write after a restart, whatever the states", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(podArb, { minLength: 1, maxLength: 4 }),
        fc.array(swhArb, { minLength: 1, maxLength: 3 }),
        fc.infiniteStream(stateArb),
        async (pods, swhs, states) => {
          const world = new World();
          world.pods = pods.map((p, i) => aPod({ name: `p${i}`, ips: [`10.244.1.${i + 1}`], ...p }));
          world.swhs = swhs.map((s, i) =>
            aSwhObject({
              name: `s${i}`,
              probes: s.probes.map((j) => PROBES[j] as DefaultedProbeSpec),
              spec: {
                publishNotReadyAddresses: s.publishNotReadyAddresses,
                ports: [
                  aPort({ name: "http", port: 80, targetPort: 8080 }),
                  aPort({ name: "admin", port: 90, targetPort: 9090 }),
                ],
              },
            }),
          );
          for (const target of world.targets().targets) {
            const state = states.next().value;
            if (state !== undefined) world.states.set(target.id, state);
          }
          for (let i = 0; i < swhs.length; i++) await world.reconcile(`shop/s${i}`);
          const published = structuredClone(world.slices);
          const writes = world.writes;

          world.states = restartSeeds(world);
          for (let i = 0; i < swhs.length; i++) await world.reconcile(`shop/s${i}`);
          expect(world.writes).toBe(writes);
          expect(world.slices).toEqual(published);
        },
      ),
      { numRuns: 300 },
    );
    // 300 runs take about 4 s on a core of their own; the deadline only catches a hang. The shared 20 s was
    // exceeded once when the whole workspace's tests ran beside other work at load average 26 on 2 cores.
  }, 120_000);
});
