import type { V1ConfigMap } from "@kubernetes/client-node";
import { type TestCluster, testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { createJsonClient, KubeApiError, type KubeJsonClient } from "../src/index.js";

let cluster: TestCluster;
let api: KubeJsonClient;

beforeAll(async () => {
  cluster = await testCluster();
  api = createJsonClient(cluster.kubeConfig);
});

describe("createJsonClient against a real API server", () => {
  it("creates, reads, merge-patches and deletes a ConfigMap, naming the field manager", async () => {
    const namespace = await cluster.createNamespace("json");
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const created = await api.request<V1ConfigMap>({
      method: "POST",
      path,
      query: { fieldManager: "swh-json-test" },
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } },
    });
    expect(created.metadata?.managedFields?.map((f) => f.manager)).toEqual(["swh-json-test"]);

    const patched = await api.request<V1ConfigMap>({
      method: "PATCH",
      path: `${path}/cm`,
      body: { data: { b: "2" } },
      contentType: "application/merge-patch+json",
    });
    expect(patched.data).toEqual({ a: "1", b: "2" });
    expect(Number(patched.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created.metadata?.resourceVersion),
    );

    const read = await api.request<V1ConfigMap>({ method: "GET", path: `${path}/cm` });
    expect(read.data).toEqual({ a: "1", b: "2" });

    await api.request({ method: "DELETE", path: `${path}/cm` });
    const gone = await api.request({ method: "GET", path: `${path}/cm` }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(KubeApiError);
    expect(gone).toMatchObject({ code: 404, body: { kind: "Status", reason: "NotFound" } });
  });

  it("rejects a second create of the same name with 409 AlreadyExists", async () => {
    const namespace = await cluster.createNamespace("json");
    const req = {
      method: "POST" as const,
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      body: { metadata: { name: "twice" } },
    };
    await api.request(req);
    await expect(api.request(req)).rejects.toMatchObject({ code: 409, body: { reason: "AlreadyExists" } });
  });

  it("gets 422 Invalid with the field named for an object the API server rejects", async () => {
    const namespace = await cluster.createNamespace("json");
    const err = await api
      .request({
        method: "POST",
        path: `/api/v1/namespaces/${namespace}/configmaps`,
        body: { metadata: { name: "Not_A_Name" } },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 422, body: { reason: "Invalid" } });
    expect((err as Error).message).toContain("metadata.name");
  });
});
