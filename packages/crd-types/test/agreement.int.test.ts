/**
 * `validate()` and a real API server agree on accept/reject for random, often invalid, objects: each object is
 * created on the server and the verdicts compared (201 ⇔ no issues, 422 ⇔ issues).
 */
import { type TestCluster, testCluster } from "@swh/testenv";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { serviceWithHealthchecks, validate } from "../src/index.js";
import { callApi, swhPath } from "./support/api.js";
import { installCrd } from "./support/install-crd.js";
import { mutatedSpecArb } from "./support/mutations.js";

const RUNS = 200;

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
  await installCrd(cluster);
});

describe("validate() agrees with the API server", () => {
  it(`on ${RUNS} random mutated objects`, async () => {
    const ns = await cluster.createNamespace("crd-agree");
    let n = 0;
    const verdicts = { accepted: 0, rejected: 0 };
    await fc.assert(
      fc.asyncProperty(mutatedSpecArb, async (spec) => {
        const name = `m${n++}`;
        const manifest = serviceWithHealthchecks({ name }, spec);
        const issues = validate(manifest);
        const res = await callApi(cluster.info, "POST", swhPath(ns), manifest);
        const detail = `validate: ${JSON.stringify(issues)}\nserver: ${JSON.stringify(res.body.message)}`;
        expect(res.status, detail).toBe(issues.length === 0 ? 201 : 422);
        verdicts[res.status === 201 ? "accepted" : "rejected"]++;
        if (res.status === 201) await callApi(cluster.info, "DELETE", swhPath(ns, name));
      }),
      { numRuns: RUNS },
    );
    // Both outcomes must be well represented, or the property proves little.
    expect(verdicts.accepted).toBeGreaterThan(RUNS / 10);
    expect(verdicts.rejected).toBeGreaterThan(RUNS / 10);
  });
});
