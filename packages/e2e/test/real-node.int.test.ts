/**
 * The product the way clusters run it (issue 30): the chart installed with `helm install` onto a cluster whose node
 * is a real kubelet + containerd, so the controller and agent are pods from the release images, under their
 * ServiceAccounts (projected tokens), the chart's admission policies, probes, limits and securityContext; the
 * workload is busybox httpd pods; traffic goes through kube-proxy to pod IPs on the CNI bridge.
 */
import { AppsV1Api, CoordinationV1Api, CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { httpProbe, READINESS_GATE_PREFIX, serviceWithHealthchecks } from "@swh/crd-types";
import { CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import {
  execInPod,
  installChart,
  type RealNodeCluster,
  startRealNodeCluster,
  type TestCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildProductImages,
  busyboxWebDeployment,
  countHttp,
  formatCount,
  HEALTHZ_FILE,
  podTable,
  WEB_CONTAINER,
} from "../src/index.js";

const SYSTEM = "swh-system";
/** Requests per measurement: a pod still routed to is missed by all of them with probability ≤ 2^-40. */
const N = 40;

let node: RealNodeCluster;
let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;
let clusterIP: string;
const timings: Record<string, number> = {};

beforeAll(async () => {
  let began = Date.now();
  const images = buildProductImages();
  timings.imagesMs = Date.now() - began;
  node = await startRealNodeCluster({ images });
  timings.nodeStartMs = node.startMs;
  cluster = node.cluster;
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  began = Date.now();
  const apiPort = new URL(cluster.info.server).port;
  installChart(cluster, {
    set: [
      "networkPolicy.enabled=true",
      `networkPolicy.apiServer.cidrs={${node.node.address}/32}`,
      `networkPolicy.apiServer.ports={443,${apiPort}}`,
    ],
  });
  timings.helmInstallMs = Date.now() - began;
  console.log(`real node: ${JSON.stringify(timings)}`);
  console.log(await podTable(cluster.kubeConfig));

  namespace = await cluster.createNamespace("shop");
  await cluster.apply(
    [
      busyboxWebDeployment({
        name: "web",
        namespace,
        image: node.busyboxImage,
        replicas: 2,
        readinessGates: [`${READINESS_GATE_PREFIX}web`],
      }),
      webSwh("web"),
    ],
    { namespace },
  );
  clusterIP = await serviceIP("web");
  await routedTo("web", await readyWebPods(2));
}, 300_000);

afterAll(async () => {
  await node?.stop();
});

function webSwh(name: string) {
  return serviceWithHealthchecks(
    { name, namespace },
    {
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, targetPort: "http" }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [httpProbe("http", { path: "/healthz", timeoutSeconds: 1, failureThreshold: 2 })],
      },
    },
  );
}

async function serviceIP(name: string): Promise<string> {
  return waitFor(`Service ${name} has a ClusterIP`, async () => {
    const s = await core.readNamespacedService({ name, namespace });
    return s.spec?.clusterIP;
  });
}

/** The web pods that run (not terminating), sorted by name. */
async function webPods(): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({ namespace, labelSelector: "app=web" });
  return pods.items
    .filter((p) => !p.metadata?.deletionTimestamp && p.status?.podIP)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

/** Waits until `count` web pods run and are Ready (their gate included); returns them. */
async function readyWebPods(count: number): Promise<V1Pod[]> {
  return waitFor(
    `${count} web pods Ready`,
    async () => {
      const pods = await webPods();
      return pods.length === count && pods.every(isReady) ? pods : undefined;
    },
    { timeoutMs: 90_000 },
  );
}

function endpointsOf(pods: readonly V1Pod[]): string[] {
  return pods.map((p) => `${p.status?.podIP}:8080`).sort();
}

function routed(service: string): string[] {
  return node.proxy.routedEndpoints({ namespace, name: service, port: "http" });
}

async function routedTo(service: string, pods: readonly V1Pod[]): Promise<void> {
  const want = endpointsOf(pods);
  await waitFor(`kube-proxy routes ${service}:http to ${want.join(", ")}`, () => {
    const now = routed(service);
    if (now.join(" ") === want.join(" ")) return true;
    throw new Error(`routed to [${now.join(", ")}]`);
  });
}

async function systemPods(component: "controller" | "agent"): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({
    namespace: SYSTEM,
    labelSelector: `app.kubernetes.io/component=${component}`,
  });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp);
}

function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/**
 * Samples what kube-proxy routes `service:http` to every 100 ms until `stop()`; returns the samples that differ
 * from `want`.
 */
function watchRouting(service: string, want: readonly string[]) {
  const wrong: string[] = [];
  let samples = 0;
  const timer = setInterval(() => {
    samples++;
    const now = routed(service).join(" ");
    if (now !== want.join(" ")) wrong.push(now);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return { samples, wrong };
    },
  };
}

describe("the chart on a real node", () => {
  it("runs the controller and agent pods Ready under their ServiceAccounts", async () => {
    const controllers = await systemPods("controller");
    const agents = await systemPods("agent");
    expect(controllers.map(isReady)).toEqual([true, true]);
    expect(agents.map(isReady)).toEqual([true]);
    expect(agents[0]?.spec?.nodeName).toBe(node.node.name);
    const accounts = [...controllers, ...agents].map((p) => p.spec?.serviceAccountName);
    expect(new Set(accounts).size).toBe(2);
  });

  it("a failing check takes the pod out of its port's traffic; passing again brings it back", async () => {
    const pods = await webPods();
    const [a, b] = pods as [V1Pod, V1Pod];
    const before = await countHttp(clusterIP, 80, N);
    console.log(`both pods passing: ${formatCount(before)}`);
    expect(before.failed).toBe(0);
    expect(Object.keys(before.byPod).sort()).toEqual(pods.map((p) => p.metadata?.name).sort());

    const target = { namespace, pod: a.metadata?.name ?? "", container: WEB_CONTAINER };
    await execInPod(cluster.kubeConfig, target, ["rm", HEALTHZ_FILE]);
    await routedTo("web", [b]);
    const during = await countHttp(clusterIP, 80, N);
    console.log(`${target.pod} failing /healthz: ${formatCount(during)}`);
    expect(during).toMatchObject({ failed: 0, byPod: { [b.metadata?.name ?? ""]: N } });

    await execInPod(cluster.kubeConfig, target, ["sh", "-c", `echo ok > ${HEALTHZ_FILE}`]);
    await routedTo("web", pods);
  });

  it("the agent pod deleted: the DaemonSet starts another and no endpoint is withdrawn meanwhile", async () => {
    const want = endpointsOf(await webPods());
    const [old] = await systemPods("agent");
    const watch = watchRouting("web", want);
    await core.deleteNamespacedPod({ name: old?.metadata?.name ?? "", namespace: SYSTEM });
    const fresh = await waitFor(
      "a new agent pod Ready",
      async () => {
        const [p] = await systemPods("agent");
        return p && p.metadata?.uid !== old?.metadata?.uid && isReady(p) ? p : undefined;
      },
      { timeoutMs: 90_000 },
    );
    // The new agent probes and writes its slices: give it a few check periods under watch.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const { samples, wrong } = watch.stop();
    console.log(
      `agent ${old?.metadata?.name} → ${fresh.metadata?.name}: ${samples} samples, ${wrong.length} wrong`,
    );
    expect(wrong).toEqual([]);
    expect((await countHttp(clusterIP, 80, N)).failed).toBe(0);
  });

  it("the controller leader pod deleted: the other replica takes the Lease and reconciles a new SWH", async () => {
    const leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const holder = async () =>
      (await leases.readNamespacedLease({ name: CONTROLLER_LEADER_LEASE, namespace: SYSTEM })).spec
        ?.holderIdentity;
    const leader = await waitFor("a controller leader", holder);
    const controllers = await systemPods("controller");
    const leaderPod = controllers.find((p) => leader.startsWith(p.metadata?.name ?? "-"));
    expect(leaderPod, `leader ${leader} among ${controllers.map((p) => p.metadata?.name)}`).toBeDefined();
    const watch = watchRouting("web", endpointsOf(await webPods()));
    await core.deleteNamespacedPod({ name: leaderPod?.metadata?.name ?? "", namespace: SYSTEM });
    const next = await waitFor(
      "another controller holds the Lease",
      async () => {
        const h = await holder();
        return h && h !== leader ? h : undefined;
      },
      { timeoutMs: 90_000 },
    );
    console.log(`controller leader ${leader} → ${next}`);
    await cluster.apply([webSwh("web2")], { namespace });
    await serviceIP("web2");
    await routedTo("web2", await webPods());
    const { wrong } = watch.stop();
    expect(wrong).toEqual([]);
  });

  it("a Deployment rollout gated on the SWH keeps serving", async () => {
    const apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    const oldPods = (await webPods()).map((p) => p.metadata?.name);
    let stopped = false;
    const counts = { ok: 0, failed: 0, failures: new Set<string>(), byPod: new Set<string>() };
    const traffic = (async () => {
      while (!stopped) {
        const c = await countHttp(clusterIP, 80, 5);
        counts.ok += c.total - c.failed;
        counts.failed += c.failed;
        for (const f of c.failures) counts.failures.add(f);
        for (const p of Object.keys(c.byPod)) counts.byPod.add(p);
      }
    })();
    await apps.patchNamespacedDeployment({
      name: "web",
      namespace,
      body: [
        { op: "add", path: "/spec/template/metadata/annotations", value: { rollout: String(Date.now()) } },
      ],
    });
    await waitFor(
      "the rollout is complete",
      async () => {
        const d = await apps.readNamespacedDeployment({ name: "web", namespace });
        const s = d.status;
        const done =
          (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
          s?.updatedReplicas === 2 &&
          s?.availableReplicas === 2 &&
          s?.replicas === 2;
        const pods = await webPods();
        return done && pods.every((p) => !oldPods.includes(p.metadata?.name)) && pods.length === 2;
      },
      { timeoutMs: 120_000 },
    );
    await routedTo("web", await readyWebPods(2));
    stopped = true;
    await traffic;
    console.log(
      `rollout: ${counts.ok} answered, ${counts.failed} failed ${[...counts.failures].join(", ")}; pods ${[...counts.byPod].join(", ")}`,
    );
    expect(counts.failed).toBe(0);
    expect(counts.ok).toBeGreaterThan(0);
  });

  it("the product's pods hold their probes and limits under load: no restart, no OOM kill", async () => {
    // Load: 20 more web pods under two more SWHs (checks every second), traffic meanwhile.
    await cluster.apply(
      [
        busyboxWebDeployment({ name: "load", namespace, image: node.busyboxImage, replicas: 20 }),
        ...["load-a", "load-b"].map((name) =>
          serviceWithHealthchecks(
            { name, namespace },
            {
              selector: { app: "load" },
              ports: [{ name: "http", port: 80, targetPort: "http" }],
              healthcheck: { periodSeconds: 1, probes: [httpProbe("http", { path: "/healthz" })] },
            },
          ),
        ),
      ],
      { namespace },
    );
    await waitFor(
      "20 load pods routed by load-a",
      () => node.proxy.routedEndpoints({ namespace, name: "load-a", port: "http" }).length === 20,
      { timeoutMs: 120_000 },
    );
    const loadIP = await serviceIP("load-b");
    const load = await countHttp(loadIP, 80, 200);
    console.log(`load-b: ${formatCount(load)}`);
    expect(load.failed).toBe(0);
    console.log(await podTable(cluster.kubeConfig));
    for (const pod of [...(await systemPods("controller")), ...(await systemPods("agent"))]) {
      for (const s of pod.status?.containerStatuses ?? []) {
        expect(s.restartCount, `${pod.metadata?.name} restarts`).toBe(0);
        expect(s.lastState?.terminated?.reason, `${pod.metadata?.name} last state`).toBeUndefined();
      }
    }
  });
});
