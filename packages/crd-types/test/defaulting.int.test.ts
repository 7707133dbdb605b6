/**
 * Server-side defaulting equals `applyDefaults()`: many random valid specs are created on a real API server and
 * what it stored is compared with `applyDefaults` of what was sent. Also the other half of the validation
 * agreement: the server accepts every spec `validate()` accepts.
 */
import { type TestCluster, testCluster } from "@swh/testenv";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { applyDefaults, serviceWithHealthchecks, validate } from "../src/index.js";
import { callApi, swhPath } from "./support/api.js";
import { specArb } from "./support/arbitraries.js";
import { installCrd } from "./support/install-crd.js";

/** Random objects created per run; each is one create + one delete against the API server. */
const RUNS = 200;

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
  await installCrd(cluster);
});

describe("server-side defaulting", () => {
  it(`stores exactly applyDefaults(spec) for ${RUNS} random valid objects`, async () => {
    const ns = await cluster.createNamespace("crd-defaults");
    let n = 0;
    await fc.assert(
      fc.asyncProperty(specArb, async (spec) => {
        const name = `p${n++}`;
        const manifest = serviceWithHealthchecks({ name }, spec);
        expect(validate(manifest)).toEqual([]);
        const created = await callApi(cluster.info, "POST", swhPath(ns), manifest);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const read = await callApi(cluster.info, "GET", swhPath(ns, name));
        expect(read.body.spec).toEqual(applyDefaults(spec));
        await callApi(cluster.info, "DELETE", swhPath(ns, name));
      }),
      { numRuns: RUNS },
    );
  });
});
