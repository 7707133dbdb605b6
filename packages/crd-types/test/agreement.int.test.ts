/**
 * `validate()` and a real API server agree on accept/reject at every boundary: each boundary mutation
 * (test/support/mutations.ts) is applied to a random valid spec, the object is created on the server, and the
 * verdicts are compared (201 ⇔ no issues, 422 ⇔ issues).
 */
import { type TestCluster, testCluster } from "@swh/testenv";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { serviceWithHealthchecks, validate } from "../src/index.js";
import { callApi, swhPath } from "./support/api.js";
import { specArb } from "./support/arbitraries.js";
import { installCrd } from "./support/install-crd.js";
import { applyMutation, MUTATIONS } from "./support/mutations.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
  await installCrd(cluster);
});

describe("validate() agrees with the API server", () => {
  it(`on all ${MUTATIONS.length} boundary mutations of random valid objects`, async () => {
    const ns = await cluster.createNamespace("crd-agree");
    const seed = Date.now();
    const bases = fc.sample(specArb, { numRuns: MUTATIONS.length, seed });
    const verdicts = { accepted: 0, rejected: 0 };
    const disagreements: string[] = [];
    for (const [i, mutation] of MUTATIONS.entries()) {
      const spec = applyMutation(bases[i] ?? {}, mutation);
      const manifest = serviceWithHealthchecks({ name: `m${i}` }, spec);
      const issues = validate(manifest);
      const res = await callApi(cluster.info, "POST", swhPath(ns), manifest);
      if (res.status !== (issues.length === 0 ? 201 : 422)) {
        disagreements.push(
          `${mutation.path.join(".")} = ${JSON.stringify(mutation.value)}: server ${res.status} ${JSON.stringify(res.body.message)}; validate ${JSON.stringify(issues)}`,
        );
      }
      verdicts[res.status === 201 ? "accepted" : "rejected"]++;
    }
    expect(disagreements, `seed ${seed}`).toEqual([]);
    // Both outcomes must be well represented, or the comparison proves little.
    expect(verdicts.accepted).toBeGreaterThan(MUTATIONS.length / 5);
    expect(verdicts.rejected).toBeGreaterThan(MUTATIONS.length / 5);
  });
});
