/**
 * The applier against the real kube-apiserver of @swh/testenv: what a user sees is the set of EndpointSlices in
 * the namespace, so every test asserts on those, plus the API requests the applier made (counted by a
 * client-node middleware on the real HTTP client).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  createConfiguration,
  DiscoveryV1Api,
  type KubeConfig,
  ServerConfiguration,
  type V1EndpointSlice,
} from "@kubernetes/client-node";
import type { DesiredEndpoint, EndpointGroup } from "@swh/aggregation";
import {
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  PLURAL,
  VERSION,
} from "@swh/crd-types";
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import {
  applySlicePlan,
  type PlanSlicesInput,
  planSlices,
  type SlicePlan,
  sliceLabelSelector,
} from "../src/index.js";

const nodeName = "node-a";
const manifest = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../deploy/manifests/${name}`, import.meta.url)), "utf8");

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
  await cluster.apply(manifest("crd.yaml"));
  const ext = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
  await waitFor("the ServiceWithHealthchecks CRD to be established", async () => {
    const crd = await ext.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
});

/** A DiscoveryV1Api whose every HTTP request is recorded as `METHOD /path`. */
function countingApi(kc: KubeConfig): { api: DiscoveryV1Api; requests: string[] } {
  const requests: string[] = [];
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error("kubeconfig without a cluster");
  const config = createConfiguration({
    baseServer: new ServerConfiguration(server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [
      {
        pre: async (ctx) => {
          requests.push(`${ctx.getHttpMethod()} ${new URL(ctx.getUrl()).pathname}`);
          return ctx;
        },
        post: async (ctx) => ctx,
      },
    ],
  });
  return { api: new DiscoveryV1Api(config), requests };
}

interface Env {
  namespace: string;
  swh: { name: string; namespace: string; uid: string };
  api: DiscoveryV1Api;
  requests: string[];
}

/** A fresh namespace holding a real ServiceWithHealthchecks (the slices' controller owner). */
async function anEnv(): Promise<Env> {
  const namespace = await cluster.createNamespace("slices");
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  const created = (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    body: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    },
  })) as { metadata: { uid: string } };
  return {
    namespace,
    swh: { name: "web", namespace, uid: created.metadata.uid },
    ...countingApi(cluster.kubeConfig),
  };
}

function anEndpoint(address: string, overrides: Partial<DesiredEndpoint> = {}): DesiredEndpoint {
  return {
    address,
    conditions: { ready: true, serving: true, terminating: false },
    nodeName,
    zone: "zone-1",
    targetRef: {
      kind: "Pod",
      name: `pod-${address.replaceAll(".", "-")}`,
      namespace: "default",
      uid: `uid-${address}`,
    },
    ...overrides,
  };
}

function aGroup(n: number, overrides: Partial<DesiredEndpoint> = {}): EndpointGroup {
  const endpoints = Array.from({ length: n }, (_, i) => anEndpoint(`10.244.1.${i + 1}`, overrides));
  return { portName: "http", port: 8080, protocol: "TCP", addressFamily: "IPv4", endpoints };
}

/** Every slice in the namespace (ours and anyone else's). */
async function slicesIn(env: Env): Promise<V1EndpointSlice[]> {
  const admin = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
  return (await admin.listNamespacedEndpointSlice({ namespace: env.namespace })).items;
}

/** Addresses per slice, sorted: what kube-proxy would route to. */
function addressesOf(slices: readonly V1EndpointSlice[]): string[][] {
  return slices
    .map((s) => (s.endpoints ?? []).map((e) => e.addresses[0] ?? "").sort())
    .sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

/** Reads our slices like the agent's cache would, plans and applies (re-planning on conflicts). */
async function reconcile(
  env: Env,
  groups: EndpointGroup[],
  opts: { max?: number; existing?: V1EndpointSlice[] } = {},
) {
  const listed =
    opts.existing ??
    (
      await env.api.listNamespacedEndpointSlice({
        namespace: env.namespace,
        labelSelector: sliceLabelSelector({ nodeName, swhName: env.swh.name }),
      })
    ).items;
  const input: PlanSlicesInput = { swh: env.swh, nodeName, groups, existing: listed };
  if (opts.max !== undefined) input.maxEndpointsPerSlice = opts.max;
  const plan = planSlices(input);
  env.requests.length = 0;
  const result = await applySlicePlan(env.api, plan, {
    namespace: env.namespace,
    nodeName,
    swhName: env.swh.name,
    replan: (existing) => planSlices({ ...input, existing }),
  });
  return { plan, result, requests: [...env.requests] };
}

const writesOf = (requests: string[]) => requests.filter((r) => !r.startsWith("GET "));

describe("applySlicePlan against a real API server", () => {
  it("creates the slices of a new SWH, owned by it, one per address family", async () => {
    const env = await anEnv();
    const v6: EndpointGroup = {
      ...aGroup(0),
      addressFamily: "IPv6",
      endpoints: [anEndpoint("fd00:10:244::1:1")],
    };
    const { result } = await reconcile(env, [aGroup(3), v6]);
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    expect(result.writes.create.ok).toBe(2);
    const slices = (await slicesIn(env)).filter((s) => s.addressType === "IPv4");
    expect(addressesOf(await slicesIn(env))).toEqual([
      ["10.244.1.1", "10.244.1.2", "10.244.1.3"],
      ["fd00:10:244::1:1"],
    ]);
    expect(slices[0]?.metadata?.ownerReferences?.[0]).toMatchObject({
      uid: env.swh.uid,
      controller: true,
      kind: KIND,
    });
    expect(slices[0]?.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
  });

  it("makes zero API requests when the desired state is unchanged", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(3)]);
    const again = await reconcile(env, [aGroup(3)]);
    expect(again.plan).toEqual({ create: [], update: [], delete: [] });
    expect(again.requests).toEqual([]);
    expect(again.result.ok).toBe(true);
  });

  it("updates a slice in place when a condition changes", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(2)]);
    const [before] = await slicesIn(env);
    const { result, requests } = await reconcile(env, [
      aGroup(2, { conditions: { ready: false, serving: false, terminating: false } }),
    ]);
    const [after] = await slicesIn(env);
    expect(writesOf(requests)).toEqual([
      `PUT /apis/discovery.k8s.io/v1/namespaces/${env.namespace}/endpointslices/${before?.metadata?.name}`,
    ]);
    expect(result.writes.update.ok).toBe(1);
    expect(after?.metadata?.uid).toBe(before?.metadata?.uid);
    expect(after?.endpoints?.map((e) => e.conditions?.ready)).toEqual([false, false]);
  });

  it("splits at the limit, then shrinks by deleting emptied slices and keeping the rest", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(5)], { max: 2 });
    const split = await slicesIn(env);
    expect(
      addressesOf(split)
        .map((a) => a.length)
        .sort(),
    ).toEqual([1, 2, 2]);
    const { result } = await reconcile(env, [aGroup(1)], { max: 2 });
    const shrunk = await slicesIn(env);
    expect(addressesOf(shrunk)).toEqual([["10.244.1.1"]]);
    expect(split.map((s) => s.metadata?.uid)).toContain(shrunk[0]?.metadata?.uid);
    expect(result.writes.delete.ok).toBe(2);
    expect(result.writes.create.ok).toBe(0);
  });

  it("deletes every slice when nothing is desired any more", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(2), { ...aGroup(1), portName: "metrics", port: 9090 }]);
    expect(await slicesIn(env)).toHaveLength(2);
    const { result } = await reconcile(env, []);
    expect(result.writes.delete.ok).toBe(2);
    expect(await slicesIn(env)).toEqual([]);
  });

  it("re-reads and re-plans after a concurrent writer causes a 409, keeping the other writer's label", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(2)]);
    const stale = await slicesIn(env);
    const [slice] = stale;
    const admin = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    await admin.replaceNamespacedEndpointSlice({
      name: slice?.metadata?.name ?? "",
      namespace: env.namespace,
      body: {
        ...structuredClone(slice as V1EndpointSlice),
        metadata: { ...slice?.metadata, labels: { ...slice?.metadata?.labels, team: "x" } },
      },
    });
    const { result } = await reconcile(env, [aGroup(3)], { existing: stale });
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(result.writes.update).toMatchObject({ conflict: 1, ok: 1 });
    const [after] = await slicesIn(env);
    expect(addressesOf([after as V1EndpointSlice])).toEqual([["10.244.1.1", "10.244.1.2", "10.244.1.3"]]);
    expect(after?.metadata?.labels?.team).toBe("x");
  });

  it("turns AlreadyExists into an update and a vanished slice into a create", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(1)]);
    const exists = await reconcile(env, [aGroup(2)], { existing: [] });
    expect(exists.result).toMatchObject({ ok: true, attempts: 2 });
    expect(exists.result.writes.create.alreadyExists).toBe(1);
    expect(exists.result.writes.update.ok).toBe(1);
    const cached = await slicesIn(env);
    const admin = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    await admin.deleteNamespacedEndpointSlice({
      name: cached[0]?.metadata?.name ?? "",
      namespace: env.namespace,
    });
    const vanished = await reconcile(env, [aGroup(3)], { existing: cached });
    expect(vanished.result.writes.update.notFound).toBe(1);
    expect(vanished.result.writes.create.ok).toBe(1);
    expect(addressesOf(await slicesIn(env))).toEqual([["10.244.1.1", "10.244.1.2", "10.244.1.3"]]);
  });

  it("leaves a foreign slice with the same service-name label untouched, even when a plan names it", async () => {
    const env = await anEnv();
    const admin = cluster.kubeConfig.makeApiClient(DiscoveryV1Api);
    const foreign = await admin.createNamespacedEndpointSlice({
      namespace: env.namespace,
      body: {
        metadata: {
          name: "web-by-someone-else",
          labels: { [LABEL_SERVICE_NAME]: "web", [LABEL_MANAGED_BY]: "someone-else" },
        },
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        endpoints: [{ addresses: ["10.244.9.9"] }],
      },
    });
    await reconcile(env, [aGroup(2)]);
    await reconcile(env, []);
    const forged: SlicePlan = { create: [], update: [], delete: [foreign] };
    env.requests.length = 0;
    const refused = await applySlicePlan(env.api, forged, {
      namespace: env.namespace,
      nodeName,
      swhName: "web",
    });
    expect(refused.ok).toBe(false);
    expect(refused.writes.delete.notOwned).toBe(1);
    expect(env.requests).toEqual([]);
    const left = await slicesIn(env);
    expect(left.map((s) => [s.metadata?.name, s.metadata?.resourceVersion])).toEqual([
      [foreign.metadata?.name, foreign.metadata?.resourceVersion],
    ]);
  });

  it("creates, re-plans after a conflict and deletes as the agent ServiceAccount with the shipped RBAC", async () => {
    const env = await anEnv();
    await cluster.apply(manifest("namespace.yaml"));
    await cluster.apply(manifest("rbac-agent.yaml"));
    const { kubeConfig } = await cluster.serviceAccountKubeConfig("swh-system", "swh-agent");
    const agent: Env = { ...env, ...countingApi(kubeConfig) };
    await waitFor("the agent's RBAC to take effect", async () => {
      try {
        await agent.api.listNamespacedEndpointSlice({ namespace: env.namespace });
        return true;
      } catch {
        return false;
      }
    });
    expect((await reconcile(agent, [aGroup(2)])).result).toMatchObject({ ok: true });
    const stale = await slicesIn(env);
    await reconcile(agent, [aGroup(1)]);
    const replanned = await reconcile(agent, [aGroup(3)], { existing: stale });
    expect(replanned.result).toMatchObject({ ok: true, attempts: 2 });
    expect(addressesOf(await slicesIn(env))).toEqual([["10.244.1.1", "10.244.1.2", "10.244.1.3"]]);
    expect((await reconcile(agent, [])).result.writes.delete.ok).toBe(1);
    expect(await slicesIn(env)).toEqual([]);
  });

  it("gives up after maxAttempts when every re-plan is stale again, and reports it", async () => {
    const env = await anEnv();
    await reconcile(env, [aGroup(1)]);
    const stale = planSlices({ swh: env.swh, nodeName, groups: [aGroup(2)], existing: await slicesIn(env) });
    await reconcile(env, [aGroup(3)]);
    const result = await applySlicePlan(env.api, stale, {
      namespace: env.namespace,
      nodeName,
      swhName: env.swh.name,
      replan: () => stale,
      maxAttempts: 3,
    });
    expect(result).toMatchObject({ ok: false, attempts: 3, error: { action: "update", code: 409 } });
    expect(result.writes.update.conflict).toBe(3);
    expect(addressesOf(await slicesIn(env))).toEqual([["10.244.1.1", "10.244.1.2", "10.244.1.3"]]);
  });

  it("returns an invalid slice as an error naming the field instead of throwing", async () => {
    const env = await anEnv();
    const { result } = await reconcile(env, [{ ...aGroup(0), endpoints: [anEndpoint("127.0.0.1")] }]);
    expect(result).toMatchObject({ ok: false, attempts: 1, error: { action: "create", code: 422 } });
    expect(result.error?.message).toMatch(/endpoints\[0\]\.addresses/);
    expect(result.writes.create.error).toBe(1);
    expect(await slicesIn(env)).toEqual([]);
  });
});
