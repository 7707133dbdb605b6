/**
 * The timeout bounds of ADR 0016 on a real API server, for objects stored before them: such an object is kept
 * and stays updatable where its probes are untouched (CRD validation ratcheting), and is held to the bounds
 * once its health checks change. The agent bounds its timeouts at run time (`boundedTimeoutSeconds`).
 */
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceWithHealthchecks, tcpProbe } from "../src/index.js";
import { callApi, swhPath } from "./support/api.js";
import { installCrd, shippedCrd } from "./support/install-crd.js";
import { aSpec } from "./support/invalid-manifests.js";

let cluster: TestCluster;

/** The shipped CRD as it was before the bounds: no `maximum` on timeoutSeconds, no rule on the healthcheck. */
function crdWithoutTimeoutBounds() {
  const crd = structuredClone(shippedCrd()) as unknown as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };
  const healthcheck = crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties?.healthcheck;
  const timeout = healthcheck?.properties?.probes?.items?.properties?.timeoutSeconds;
  if (healthcheck === undefined || timeout === undefined) throw new Error("the CRD has no timeoutSeconds");
  delete healthcheck["x-kubernetes-validations"];
  delete timeout.maximum;
  return crd as never;
}
interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  maximum?: number;
  "x-kubernetes-validations"?: unknown;
}

const longTimeout = (name: string) =>
  serviceWithHealthchecks(
    { name },
    aSpec({ healthcheck: { periodSeconds: 10, probes: [tcpProbe(8080, { timeoutSeconds: 3600 })] } }),
  );

beforeAll(async () => {
  cluster = await testCluster();
  await installCrd(cluster, crdWithoutTimeoutBounds());
});
afterAll(async () => {
  await installCrd(cluster);
});

describe("an object stored before the timeout bounds", () => {
  it("is kept, stays updatable while its probes are untouched, and meets the bounds once they change", async () => {
    const ns = await cluster.createNamespace("crd-ratchet");
    await waitFor("the relaxed CRD to accept a 3600 s timeout", async () => {
      const res = await callApi(cluster.info, "POST", swhPath(ns), longTimeout("old"));
      return res.status === 201;
    });
    await installCrd(cluster);
    await waitFor("the shipped CRD to refuse a new 3600 s timeout", async () => {
      const res = await callApi(cluster.info, "POST", swhPath(ns), longTimeout("new"));
      return res.status === 422;
    });

    const stored = (await callApi(cluster.info, "GET", swhPath(ns, "old"))).body as {
      metadata: Record<string, unknown>;
      spec: { ports: { port: number }[]; healthcheck: { periodSeconds: number } };
    };
    stored.metadata.labels = { team: "a" };
    stored.spec.ports = [{ ...stored.spec.ports[0], port: 81 } as { port: number }];
    const relabelled = await callApi(cluster.info, "PUT", swhPath(ns, "old"), stored);
    expect(relabelled.status, JSON.stringify(relabelled.body.message)).toBe(200);

    const changed = (await callApi(cluster.info, "GET", swhPath(ns, "old"))).body as typeof stored;
    changed.spec.healthcheck.periodSeconds = 20;
    const refused = await callApi(cluster.info, "PUT", swhPath(ns, "old"), changed);
    expect(refused.status).toBe(422);
    expect(String(refused.body.message)).toContain("timeoutSeconds");
  });
});
