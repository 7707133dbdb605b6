/**
 * The controller's writes against the real API server, as its own ServiceAccount: a status patch computed from an
 * older version of the SWH never lands over a newer write (what a replica that lost its Lease could otherwise do to
 * its successor), and a write whose signal is aborted is not sent.
 */
import type { ServiceWithHealthchecks } from "@swh/crd-types";
import { httpStatusOf } from "@swh/kube";
import type { CountingProxy } from "@swh/testenv";
import { type TestCluster, testCluster } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControllerApi, createControllerApi } from "../src/internal/controller-api.js";
import { controllerIdentity, installController } from "./support/harness.js";
import { clients } from "./support/objects.js";

let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
let proxy: CountingProxy;
let api: ControllerApi;

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installController(cluster);
  const identity = await controllerIdentity(cluster);
  proxy = identity.proxy;
  api = createControllerApi(identity.kubeConfig);
});

afterAll(async () => {
  await proxy?.close();
});

const readySummary = (swh: ServiceWithHealthchecks) => swh.status?.readySummary;

describe("controller writes", () => {
  it("never patches a status over a newer write of the SWH", async () => {
    const ns = await cluster.createNamespace("precondition");
    const created = await admin.createSwh(ns, "web", { ports: [{ port: 80 }] });
    const basis = created.metadata.resourceVersion;

    // The successor computed its status from `basis` and wrote first.
    const newer = await api.patchStatus(
      { namespace: ns, name: "web", resourceVersion: basis },
      { readySummary: "2/2" },
    );
    expect(newer).not.toBe(basis);

    // The replica that lost the Lease computed its status from the same `basis`: refused, nothing overwritten.
    const stale = await api
      .patchStatus({ namespace: ns, name: "web", resourceVersion: basis }, { readySummary: "0/2" })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(httpStatusOf(stale)).toBe(409);
    const stored = await admin.getSwh(ns, "web");
    expect(readySummary(stored)).toBe("2/2");
    expect(stored.metadata.resourceVersion).toBe(newer);
  });

  it("sends no write once its signal is aborted (leadership lost)", async () => {
    const ns = await cluster.createNamespace("aborted");
    const created = await admin.createSwh(ns, "web", { ports: [{ port: 80 }] });
    const term = new AbortController();
    term.abort(new Error("lost leadership"));
    await expect(
      api.patchStatus(
        { namespace: ns, name: "web", resourceVersion: created.metadata.resourceVersion },
        { readySummary: "0/2" },
        term.signal,
      ),
    ).rejects.toThrow();
    await expect(
      api.createService(
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "web", namespace: ns },
          spec: { ports: [{ port: 80 }] },
        },
        term.signal,
      ),
    ).rejects.toThrow();
    const stored = await admin.getSwh(ns, "web");
    expect(stored.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(await admin.getService(ns, "web")).toBeUndefined();
  });
});
