/**
 * The agent admission policies (deploy/manifests/admission-agent.yaml, ADR 0018) on the real API server: a token
 * bound to the agent Pod of node A writes node A's EndpointSlices, heartbeat Lease and its readiness gate
 * conditions of node A's pods, and nothing of node B's, of other writers' or of the controller's.
 */
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1EndpointSlice,
  type V1Lease,
  V1MicroTime,
} from "@kubernetes/client-node";
import {
  ANNOTATION_NODE_NAME,
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  PLURAL,
  READINESS_GATE_PREFIX,
  VERSION,
} from "@swh/crd-types";
import { AGENT_LEASE_PREFIX, CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import { sliceLabels } from "@swh/slice-writer";
import { createPod, type TestCluster, testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import {
  INSTALL_NAMESPACE,
  installAgentWithPolicy,
  manifest,
  type NodeAgent,
  outcomeOf,
  reviewToken,
  startNodeAgent,
  unboundAgentKubeConfig,
  uniqueNodeName,
} from "./support/node-agents.ts";

const NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";
const DENIED = 403;
/** holderIdentity of the controller's leader Lease: a controller Pod's name. */
const LEADER = "swh-controller-7d9f-abcde";

let cluster: TestCluster;
let a: NodeAgent;
let b: NodeAgent;
let unbound: KubeConfig;
let tenant: string;
/** The SWH whose slices the tests write, and its uid (slices owned by a missing uid would be garbage-collected). */
const SWH = "web";
let swhUid: string;

/**
 * An EndpointSlice of SWH `web` as the agent of `node` writes it: its labels, its node annotation, its controller
 * reference to the SWH, one endpoint on the node.
 */
function aSlice(node: string, name: string, opts: { endpointNode?: string } = {}): V1EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name,
      namespace: tenant,
      labels: sliceLabels({ swhName: SWH, nodeName: node, portName: "http", addressFamily: "IPv4" }),
      annotations: { [ANNOTATION_NODE_NAME]: node },
      ownerReferences: [{ apiVersion: API_VERSION, kind: KIND, name: SWH, uid: swhUid, controller: true }],
    },
    addressType: "IPv4",
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    endpoints: [
      {
        addresses: ["10.244.7.1"],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: opts.endpointNode ?? node,
      },
    ],
  };
}

/** `slice` as an agent wrote it before slices carried the node annotation. */
function withoutNodeAnnotation(slice: V1EndpointSlice): V1EndpointSlice {
  const { [ANNOTATION_NODE_NAME]: _, ...annotations } = slice.metadata?.annotations ?? {};
  return { ...slice, metadata: { ...slice.metadata, annotations } };
}

/** A unique node name of the maximum length, 253 characters (a DNS name of 63-character labels). */
function longNodeName(): string {
  const domain = `.${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.example`;
  const host = uniqueNodeName("long");
  return `${host}${"n".repeat(253 - host.length - domain.length)}${domain}`;
}

/** A heartbeat Lease as the agent of `node` renews it. */
function aLease(name: string, holder: string): V1Lease {
  return {
    metadata: { name, namespace: INSTALL_NAMESPACE },
    spec: { holderIdentity: holder, leaseDurationSeconds: 40, renewTime: new V1MicroTime() },
  };
}

/** `next` as a replace of `current`: carries `current`'s resourceVersion so only admission can refuse it. */
function replacing(current: V1EndpointSlice, next: V1EndpointSlice): V1EndpointSlice {
  const resourceVersion = current.metadata?.resourceVersion;
  if (resourceVersion === undefined) throw new Error("the current slice has no resourceVersion");
  return { ...next, metadata: { ...next.metadata, resourceVersion } };
}

const slicesOf = (kc: KubeConfig) => kc.makeApiClient(DiscoveryV1Api);
const leasesOf = (kc: KubeConfig) => kc.makeApiClient(CoordinationV1Api);

/** Creates `slice` as the admin (setup: a slice some other writer or node already owns). */
async function adminCreates(slice: V1EndpointSlice): Promise<V1EndpointSlice> {
  return slicesOf(cluster.kubeConfig).createNamespacedEndpointSlice({ namespace: tenant, body: slice });
}

async function read(name: string): Promise<V1EndpointSlice> {
  return slicesOf(cluster.kubeConfig).readNamespacedEndpointSlice({ name, namespace: tenant });
}

beforeAll(async () => {
  cluster = await testCluster();
  await installAgentWithPolicy(cluster);
  a = await startNodeAgent(cluster, uniqueNodeName("node-a"));
  b = await startNodeAgent(cluster, uniqueNodeName("node-b"));
  unbound = await unboundAgentKubeConfig(cluster);
  tenant = await cluster.createNamespace("tenant");
  const swh = (await cluster.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace: tenant,
    body: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: SWH },
      spec: { selector: { app: SWH }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    },
  })) as { metadata?: { uid?: string } };
  swhUid = swh.metadata?.uid ?? "";
  // The controller's leader Lease, as a running controller holds it.
  await leasesOf(cluster.kubeConfig).createNamespacedLease({
    namespace: INSTALL_NAMESPACE,
    body: aLease(CONTROLLER_LEADER_LEASE, LEADER),
  });
});

describe("the API server's identity for an agent token", () => {
  it("names the Pod's node in userInfo.extra for a token bound to the agent Pod, and none for an unbound one", async () => {
    const user = await reviewToken(cluster, a.token);
    console.log(`TokenReview of a pod-bound agent token: ${JSON.stringify(user, null, 2)}`);
    expect(user.username).toBe(`system:serviceaccount:${INSTALL_NAMESPACE}:swh-agent`);
    expect(user.extra?.[NODE_NAME_EXTRA]).toEqual([a.nodeName]);
    expect(user.extra?.["authentication.kubernetes.io/pod-name"]).toEqual([a.podName]);
    const unboundToken = (unbound.getCurrentUser()?.token ?? "") as string;
    const plain = await reviewToken(cluster, unboundToken);
    console.log(`TokenReview of an unbound agent token: ${JSON.stringify(plain, null, 2)}`);
    expect(plain.extra?.[NODE_NAME_EXTRA]).toBeUndefined();
  });
});

describe("EndpointSlices written with node A's agent token", () => {
  it("creates, updates and deletes node A's own slice", async () => {
    const api = slicesOf(a.kubeConfig);
    const created = await api.createNamespacedEndpointSlice({
      namespace: tenant,
      body: aSlice(a.nodeName, "own"),
    });
    const changed = structuredClone(created);
    const endpoint = changed.endpoints?.[0];
    if (endpoint?.conditions) endpoint.conditions.ready = false;
    const updated = await api.replaceNamespacedEndpointSlice({
      name: "own",
      namespace: tenant,
      body: changed,
    });
    expect(updated.endpoints?.[0]?.conditions?.ready).toBe(false);
    await api.deleteNamespacedEndpointSlice({ name: "own", namespace: tenant });
    await expect(outcomeOf(read("own"))).resolves.toMatchObject({ status: 404 });
  });

  it("writes the slice of a node whose name is too long to be a label value (253 characters)", async () => {
    const long = await startNodeAgent(cluster, longNodeName());
    expect(long.nodeName).toHaveLength(253);
    const api = slicesOf(long.kubeConfig);
    await api.createNamespacedEndpointSlice({ namespace: tenant, body: aSlice(long.nodeName, "own-long") });
    expect((await read("own-long")).metadata?.annotations?.[ANNOTATION_NODE_NAME]).toBe(long.nodeName);
  });

  it("cannot create a slice of node B", async () => {
    const denied = await outcomeOf(
      slicesOf(a.kubeConfig).createNamespacedEndpointSlice({
        namespace: tenant,
        body: aSlice(b.nodeName, "b-1"),
      }),
    );
    expect(denied.status).toBe(DENIED);
    expect(denied.message).toContain(
      `the agent of node ${a.nodeName} may write only EndpointSlices labelled`,
    );
    await expect(outcomeOf(read("b-1"))).resolves.toMatchObject({ status: 404 });
  });

  it("cannot update or delete node B's slice, not even to make it its own", async () => {
    const theirs = await adminCreates(aSlice(b.nodeName, "b-2"));
    const stolen = replacing(theirs, aSlice(a.nodeName, "b-2"));
    const update = await outcomeOf(
      slicesOf(a.kubeConfig).replaceNamespacedEndpointSlice({ name: "b-2", namespace: tenant, body: stolen }),
    );
    expect(update.status).toBe(DENIED);
    expect(update.message).toContain(
      `may not update EndpointSlice ${tenant}/b-2: it belongs to node ${b.nodeName}`,
    );
    const remove = await outcomeOf(
      slicesOf(a.kubeConfig).deleteNamespacedEndpointSlice({ name: "b-2", namespace: tenant }),
    );
    expect(remove.status).toBe(DENIED);
    expect(remove.message).toContain(
      `may not delete EndpointSlice ${tenant}/b-2: it belongs to node ${b.nodeName}`,
    );
    // Node B's own agent still can.
    await slicesOf(b.kubeConfig).deleteNamespacedEndpointSlice({ name: "b-2", namespace: tenant });
  });

  it("adds the node annotation to its own slice written before the annotation existed (upgrade)", async () => {
    const long = await startNodeAgent(cluster, longNodeName());
    for (const [agent, name] of [
      [a, "legacy-a"],
      [long, "legacy-long"],
    ] as const) {
      const legacy = withoutNodeAnnotation(aSlice(agent.nodeName, name));
      const existing = await adminCreates(legacy);
      await slicesOf(agent.kubeConfig).replaceNamespacedEndpointSlice({
        name,
        namespace: tenant,
        body: replacing(existing, aSlice(agent.nodeName, name)),
      });
      expect((await read(name)).metadata?.annotations?.[ANNOTATION_NODE_NAME]).toBe(agent.nodeName);
    }
  });

  it("cannot take over node B's slice written before the annotation existed", async () => {
    const existing = await adminCreates(withoutNodeAnnotation(aSlice(b.nodeName, "legacy-b")));
    const update = await outcomeOf(
      slicesOf(a.kubeConfig).replaceNamespacedEndpointSlice({
        name: "legacy-b",
        namespace: tenant,
        body: replacing(existing, aSlice(a.nodeName, "legacy-b")),
      }),
    );
    expect(update.status).toBe(DENIED);
    expect(update.message).toContain(`it belongs to node ${b.nodeName}`);
    const remove = await outcomeOf(
      slicesOf(a.kubeConfig).deleteNamespacedEndpointSlice({ name: "legacy-b", namespace: tenant }),
    );
    expect(remove.status).toBe(DENIED);
  });

  it("cannot write a slice that no ServiceWithHealthchecks controls", async () => {
    const api = slicesOf(a.kubeConfig);
    const orphan = aSlice(a.nodeName, "orphan");
    if (orphan.metadata) orphan.metadata.ownerReferences = [];
    const foreignService = aSlice(a.nodeName, "kubernetes");
    if (foreignService.metadata?.labels) foreignService.metadata.labels[LABEL_SERVICE_NAME] = "kubernetes";
    for (const slice of [orphan, foreignService]) {
      const denied = await outcomeOf(api.createNamespacedEndpointSlice({ namespace: tenant, body: slice }));
      expect(denied.status, slice.metadata?.name).toBe(DENIED);
      expect(denied.message, slice.metadata?.name).toContain(
        "must have a controller ownerReference to the ServiceWithHealthchecks its kubernetes.io/service-name label names",
      );
    }
  });

  it("cannot publish an endpoint of node B in its own slice", async () => {
    const mixed = aSlice(a.nodeName, "mixed", { endpointNode: b.nodeName });
    const denied = await outcomeOf(
      slicesOf(a.kubeConfig).createNamespacedEndpointSlice({ namespace: tenant, body: mixed }),
    );
    expect(denied.status).toBe(DENIED);
  });

  it("cannot plant a slice carrying node B's label for node B's agent to find", async () => {
    const planted = aSlice(a.nodeName, "planted");
    if (planted.metadata?.labels) planted.metadata.labels[LABEL_NODE] = b.nodeName;
    const denied = await outcomeOf(
      slicesOf(a.kubeConfig).createNamespacedEndpointSlice({ namespace: tenant, body: planted }),
    );
    expect(denied.status).toBe(DENIED);
  });

  it("cannot create, update or delete a slice without our managed-by label", async () => {
    const foreign = aSlice(a.nodeName, "foreign");
    if (foreign.metadata?.labels)
      foreign.metadata.labels[LABEL_MANAGED_BY] = "endpointslice-controller.k8s.io";
    const api = slicesOf(a.kubeConfig);
    const create = await outcomeOf(api.createNamespacedEndpointSlice({ namespace: tenant, body: foreign }));
    expect(create.status).toBe(DENIED);
    expect(create.message).toContain(
      "may write only EndpointSlices labelled endpointslice.kubernetes.io/managed-by=service-with-healthchecks.network.deckhouse.io",
    );
    const existing = await adminCreates(foreign);
    const takeOver = await outcomeOf(
      api.replaceNamespacedEndpointSlice({
        name: "foreign",
        namespace: tenant,
        body: replacing(existing, aSlice(a.nodeName, "foreign")),
      }),
    );
    expect(takeOver.status).toBe(DENIED);
    expect(takeOver.message).toContain("it belongs to another writer");
    const remove = await outcomeOf(api.deleteNamespacedEndpointSlice({ name: "foreign", namespace: tenant }));
    expect(remove.status).toBe(DENIED);
  });

  it.each([
    [
      "its node annotation to node B",
      (s: V1EndpointSlice) => {
        (s.metadata?.annotations ?? {})[ANNOTATION_NODE_NAME] = b.nodeName;
      },
    ],
    [
      "its service-name label",
      (s: V1EndpointSlice) => {
        (s.metadata?.labels ?? {})[LABEL_SERVICE_NAME] = "other";
      },
    ],
    [
      "its managed-by label",
      (s: V1EndpointSlice) => {
        delete s.metadata?.labels?.[LABEL_MANAGED_BY];
      },
    ],
  ])("cannot change %s on its own slice", async (_what, change) => {
    const name = `relabel-${Math.random().toString(16).slice(2, 8)}`;
    const api = slicesOf(a.kubeConfig);
    const created = await api.createNamespacedEndpointSlice({
      namespace: tenant,
      body: aSlice(a.nodeName, name),
    });
    const changed = structuredClone(created);
    change(changed);
    const denied = await outcomeOf(
      api.replaceNamespacedEndpointSlice({ name, namespace: tenant, body: changed }),
    );
    expect(denied.status).toBe(DENIED);
    expect((await read(name)).metadata?.labels).toEqual(created.metadata?.labels);
  });

  it("cannot write any slice with a token not bound to a pod", async () => {
    const denied = await outcomeOf(
      slicesOf(unbound).createNamespacedEndpointSlice({
        namespace: tenant,
        body: aSlice(a.nodeName, "unbound"),
      }),
    );
    expect(denied.status).toBe(DENIED);
    expect(denied.message).toContain("this token names no node");
    const own = await adminCreates(aSlice(a.nodeName, "unbound-delete"));
    expect(own.metadata?.name).toBe("unbound-delete");
    const remove = await outcomeOf(
      slicesOf(unbound).deleteNamespacedEndpointSlice({ name: "unbound-delete", namespace: tenant }),
    );
    expect(remove.status).toBe(DENIED);
  });
});

describe("Leases written with node A's agent token", () => {
  it("creates and renews its own heartbeat Lease", async () => {
    const api = leasesOf(a.kubeConfig);
    const name = `${AGENT_LEASE_PREFIX}${a.nodeName}`;
    const created = await api.createNamespacedLease({
      namespace: INSTALL_NAMESPACE,
      body: aLease(name, a.nodeName),
    });
    const renewed = await api.replaceNamespacedLease({
      name,
      namespace: INSTALL_NAMESPACE,
      body: { ...created, spec: { ...created.spec, renewTime: new V1MicroTime() } },
    });
    expect(renewed.spec?.holderIdentity).toBe(a.nodeName);
  });

  it("cannot write the controller's leader Lease", async () => {
    const leases = leasesOf(cluster.kubeConfig);
    const leader = await leases.readNamespacedLease({
      name: CONTROLLER_LEADER_LEASE,
      namespace: INSTALL_NAMESPACE,
    });
    const takeOver = await outcomeOf(
      leasesOf(a.kubeConfig).replaceNamespacedLease({
        name: CONTROLLER_LEADER_LEASE,
        namespace: INSTALL_NAMESPACE,
        body: { ...leader, spec: { ...leader.spec, holderIdentity: a.nodeName } },
      }),
    );
    expect(takeOver.status).toBe(DENIED);
    expect(takeOver.message).toContain(`not Lease ${INSTALL_NAMESPACE}/${CONTROLLER_LEADER_LEASE}`);
    const read = await leases.readNamespacedLease({
      name: CONTROLLER_LEADER_LEASE,
      namespace: INSTALL_NAMESPACE,
    });
    expect(read.spec?.holderIdentity).toBe(LEADER);
  });

  it("cannot create a Lease under another name, not even node B's heartbeat name held by itself", async () => {
    const api = leasesOf(a.kubeConfig);
    for (const name of ["other-lease", `${AGENT_LEASE_PREFIX}${b.nodeName}`]) {
      const denied = await outcomeOf(
        api.createNamespacedLease({ namespace: INSTALL_NAMESPACE, body: aLease(name, a.nodeName) }),
      );
      expect(denied.status, name).toBe(DENIED);
      expect(denied.message, name).toContain(
        `may write only its own heartbeat Lease (${AGENT_LEASE_PREFIX}${a.nodeName} with`,
      );
    }
  });

  it("cannot take over node B's heartbeat Lease", async () => {
    const api = leasesOf(a.kubeConfig);
    const name = `${AGENT_LEASE_PREFIX}${b.nodeName}`;
    const theirs = await leasesOf(b.kubeConfig).createNamespacedLease({
      namespace: INSTALL_NAMESPACE,
      body: aLease(name, b.nodeName),
    });
    const takeOver = await outcomeOf(
      api.replaceNamespacedLease({
        name,
        namespace: INSTALL_NAMESPACE,
        body: { ...theirs, spec: { ...theirs.spec, holderIdentity: a.nodeName } },
      }),
    );
    expect(takeOver.status).toBe(DENIED);
  });

  it("cannot renew a heartbeat with a token not bound to a pod", async () => {
    const denied = await outcomeOf(
      leasesOf(unbound).createNamespacedLease({
        namespace: INSTALL_NAMESPACE,
        body: aLease(`${AGENT_LEASE_PREFIX}unbound`, "unbound"),
      }),
    );
    expect(denied.status).toBe(DENIED);
    expect(denied.message).toContain("this token names no node");
  });
});

describe("pod status written with node A's agent token (readiness gates, ADR 0038)", () => {
  const GATE = `${READINESS_GATE_PREFIX}${SWH}`;
  /** A strategic merge patch of `pods/status`, as the agent writes its gate conditions. */
  const patchStatus = (kc: KubeConfig, name: string, body: object) =>
    kc
      .makeApiClient(CoreV1Api)
      .patchNamespacedPodStatus(
        { name, namespace: tenant, body },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      );
  const gate = (status: "True" | "False") => ({
    status: { conditions: [{ type: GATE, status, reason: "ChecksPassing", message: "test" }] },
  });
  const readPod = (name: string) =>
    cluster.kubeConfig.makeApiClient(CoreV1Api).readNamespacedPodStatus({ name, namespace: tenant });

  beforeAll(async () => {
    for (const [name, node, ip] of [
      ["on-a", a.nodeName, "10.244.7.11"],
      ["on-b", b.nodeName, "10.244.7.12"],
    ] as const) {
      await createPod(cluster.kubeConfig, { name, namespace: tenant, node, ips: [ip], labels: { app: SWH } });
    }
  });

  it("sets and changes its gate condition on a pod of node A, leaving the kubelet's conditions as they were", async () => {
    const before = await readPod("on-a");
    await patchStatus(a.kubeConfig, "on-a", gate("True"));
    await patchStatus(a.kubeConfig, "on-a", gate("False"));
    const after = await readPod("on-a");
    expect(after.status?.conditions?.find((c) => c.type === GATE)?.status).toBe("False");
    const others = (p: typeof after) => p.status?.conditions?.filter((c) => c.type !== GATE);
    expect(others(after)).toEqual(others(before));
  });

  it("cannot set it on a pod of node B", async () => {
    const denied = await outcomeOf(patchStatus(a.kubeConfig, "on-b", gate("True")));
    expect(denied.status).toBe(DENIED);
    expect(denied.message).toContain(
      `may write the status only of pods on its node, not of pod ${tenant}/on-b`,
    );
    expect((await readPod("on-b")).status?.conditions?.some((c) => c.type === GATE)).toBe(false);
  });

  it("cannot change the pod's Ready condition, phase, message, labels or annotations", async () => {
    const attempts: Record<string, object> = {
      Ready: { status: { conditions: [{ type: "Ready", status: "False", reason: "Forged" }] } },
      phase: { status: { phase: "Failed" } },
      // (Its IPs once set the API server itself refuses to change: 422, before admission.)
      message: { status: { message: "forged" } },
      labels: { metadata: { labels: { app: "other" } } },
      annotations: { metadata: { annotations: { note: "x" } } },
    };
    for (const [field, body] of Object.entries(attempts)) {
      const denied = await outcomeOf(patchStatus(a.kubeConfig, "on-a", body));
      expect({ field, status: denied.status }).toEqual({ field, status: DENIED });
      expect(denied.message).toContain(
        `the agent may change only the pod conditions whose type starts with ${READINESS_GATE_PREFIX}`,
      );
    }
    const pod = await readPod("on-a");
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(pod.metadata?.labels).toEqual({ app: SWH });
  });

  it("cannot write pod status with a token not bound to a pod", async () => {
    const denied = await outcomeOf(patchStatus(unbound, "on-a", gate("True")));
    expect(denied.status).toBe(DENIED);
    expect(denied.message).toContain("this token names no node");
  });
});

describe("the controller's ServiceAccount", () => {
  it("is not restricted: it deletes node B's slice (node cleanup) and renews its leader Lease", async () => {
    await cluster.apply(manifest("rbac-controller.yaml"));
    const { kubeConfig } = await cluster.serviceAccountKubeConfig(INSTALL_NAMESPACE, "swh-controller");
    await adminCreates(aSlice(b.nodeName, "cleanup"));
    await slicesOf(kubeConfig).deleteNamespacedEndpointSlice({ name: "cleanup", namespace: tenant });
    await expect(outcomeOf(read("cleanup"))).resolves.toMatchObject({ status: 404 });
    const leases = leasesOf(kubeConfig);
    const name = CONTROLLER_LEADER_LEASE;
    const leader = await leases.readNamespacedLease({ name, namespace: INSTALL_NAMESPACE });
    const renewed = await leases.replaceNamespacedLease({
      name,
      namespace: INSTALL_NAMESPACE,
      body: { ...leader, spec: { ...leader.spec, renewTime: new V1MicroTime() } },
    });
    expect(renewed.spec?.holderIdentity).toBe(LEADER);
  });
});
