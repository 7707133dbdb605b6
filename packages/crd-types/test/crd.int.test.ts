/**
 * The CRD file the chart ships, against a real kube-apiserver: it becomes Established, shows its printer columns,
 * accepts the original product's manifests unchanged, and rejects every invalid manifest of the table with a
 * message naming the field — the same verdict `validate()` gives.
 */
import { type TestCluster, testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import {
  applyDefaults,
  httpProbe,
  type ServiceWithHealthchecksSpec,
  serviceWithHealthchecks,
  validate,
} from "../src/index.js";
import { MAX_PROBES } from "../src/internal/schema-healthcheck.js";
import { MAX_PORTS } from "../src/internal/schema-service.js";
import { callApi, swhPath } from "./support/api.js";
import { installCrd } from "./support/install-crd.js";
import { aSpec, INVALID_CASES } from "./support/invalid-manifests.js";
import { ORIGINAL_MANIFESTS } from "./support/original-manifests.js";

let cluster: TestCluster;
let crd: Awaited<ReturnType<typeof installCrd>>;

beforeAll(async () => {
  cluster = await testCluster();
  crd = await installCrd(cluster);
});

interface Cause {
  field?: string;
  message?: string;
}

describe("ServiceWithHealthchecks CRD on a real API server", () => {
  it("is Established and declares the printer columns", () => {
    const columns = crd.spec.versions[0]?.additionalPrinterColumns?.map((c) => c.name);
    expect(columns).toEqual(["Type", "Cluster-IP", "External-IP", "Ports", "Ready", "Age"]);
  });

  it("prints Type, Cluster-IP, External-IP, Ports and Ready in a kubectl-style table", async () => {
    const ns = await cluster.createNamespace("crd-table");
    const manifest = {
      apiVersion: "network.deckhouse.io/v1alpha1",
      kind: "ServiceWithHealthchecks",
      metadata: { name: "web" },
      spec: aSpec(),
    };
    const created = await callApi(cluster.info, "POST", swhPath(ns), manifest);
    expect(created.status).toBe(201);
    const status = {
      clusterIP: "10.96.0.42",
      externalIPSummary: "<none>",
      portsSummary: "80/TCP",
      readySummary: "3/4",
    };
    const written = await callApi(cluster.info, "PUT", `${swhPath(ns, "web")}/status`, {
      ...created.body,
      status,
    });
    expect(written.status).toBe(200);

    const table = await callApi(cluster.info, "GET", swhPath(ns), undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    const columns = (table.body.columnDefinitions as { name: string }[]).map((c) => c.name);
    const rows = table.body.rows as { cells: unknown[] }[];
    const byColumn = Object.fromEntries(columns.map((c, i) => [c, rows[0]?.cells[i]]));
    expect(byColumn).toMatchObject({
      Name: "web",
      Type: "ClusterIP",
      "Cluster-IP": "10.96.0.42",
      "External-IP": "<none>",
      Ports: "80/TCP",
      Ready: "3/4",
    });
    expect(byColumn.Age).toBeTypeOf("string");
  });

  it.each(ORIGINAL_MANIFESTS)(
    "accepts the original product's manifests unchanged: $name",
    async ({ all }) => {
      const ns = await cluster.createNamespace("crd-original");
      await cluster.apply(all, { namespace: ns });
      for (const sent of all.filter((o) => o.kind === "ServiceWithHealthchecks")) {
        const name = (sent.metadata as { name: string }).name;
        const stored = await callApi(cluster.info, "GET", swhPath(ns, name));
        expect(stored.status).toBe(200);
        expect(stored.body.spec).toEqual(applyDefaults(sent.spec as ServiceWithHealthchecksSpec));
      }
    },
  );

  it("accepts an object at every list limit (the CEL rules stay within the runtime cost budget)", async () => {
    const ns = await cluster.createNamespace("crd-limits");
    const ports = Array.from({ length: MAX_PORTS }, (_, i) => ({
      name: `port-${"x".repeat(50)}-${i}`,
      port: i + 1,
      targetPort: `p${"x".repeat(10)}${i % 10}`,
    }));
    const probes = Array.from({ length: MAX_PROBES }, (_, i) =>
      httpProbe(`web${"x".repeat(11)}`, {
        path: `/${"p".repeat(2000)}`,
        code: Array.from({ length: 100 }, (_, c) => 100 + c + i),
        httpHeaders: Array.from({ length: 32 }, (_, h) => ({
          name: `X-H${h}`,
          value: "v".repeat(100),
        })),
        responseHeaders: Array.from({ length: 16 }, (_, h) => ({
          name: `X-R${h}`,
          value: `$(POD_UID)${"v".repeat(1000)}`,
        })),
        body: { contains: `$(POD_NAME)${"c".repeat(1000)}`, notContains: "n".repeat(1024) },
      }),
    );
    const manifest = serviceWithHealthchecks({ name: "limits" }, { ports, healthcheck: { probes } });
    expect(validate(manifest)).toEqual([]);
    const res = await callApi(cluster.info, "POST", swhPath(ns), manifest);
    expect(res.status, JSON.stringify(res.body.message)).toBe(201);
  });

  it.each(INVALID_CASES)("rejects $name, naming $field, as validate() does", async ({ manifest, field }) => {
    const ns = await cluster.createNamespace("crd-invalid");
    const res = await callApi(cluster.info, "POST", swhPath(ns), manifest);
    expect(res.status).toBe(422);
    const causes = ((res.body.details as { causes?: Cause[] } | undefined)?.causes ?? []).map(
      (c) => `${c.field ?? ""}: ${c.message ?? ""}`,
    );
    // The server names the field either as the cause's field or, for rules on metadata, in the message.
    expect(causes.some((c) => c.startsWith(`${field}: `) || c.includes(field))).toBe(true);

    const issue = validate(manifest).find((i) => i.path === field);
    expect(issue, `validate() names ${field}`).toBeDefined();
    // Same words as the server: its message for that field contains validate()'s message.
    expect(causes.filter((c) => c.startsWith(`${field}: `) || c.includes(field)).join("\n")).toContain(
      issue?.message,
    );
  });
});
