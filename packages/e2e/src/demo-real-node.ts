/**
 * The demo on a real node (`./scripts/run demo --real-node`): the release images built, a control plane and a real
 * kubelet + containerd node started, the chart installed with `helm install`, and the product's own pods shown
 * running on the kubelet; then a web Deployment (busybox httpd pods gated on the SWH's checks) behind an SWH, with
 * where real requests to its ClusterIP land (kube-proxy routes them to pod IPs on the CNI bridge) while one pod's
 * check fails and recovers and while the Deployment rolls out. `--keep` leaves it running until Ctrl-C.
 */
import { AppsV1Api, CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { httpProbe, READINESS_GATE_PREFIX, serviceWithHealthchecks } from "@swh/crd-types";
import {
  execInPod,
  installChart,
  type RealNodeCluster,
  startRealNodeCluster,
  type TestCluster,
  waitFor,
} from "@swh/testenv";
import { busyboxWebDeployment, HEALTHZ_FILE, WEB_CONTAINER } from "./busybox-web.js";
import { podTable } from "./pod-table.js";
import { buildProductImages } from "./product-images.js";
import { countHttp, formatCount } from "./traffic.js";

const NAMESPACE = "shop";
const REQUESTS = 50;
const keep = process.argv.includes("--keep");
const say = (text: string) => process.stdout.write(`${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const started = performance.now();
  say("» building the release images (deploy/scripts/build-images.sh: buildah FROM scratch)");
  const images = buildProductImages();
  say(`  ${images.join("\n  ")}`);
  say(
    "» starting a control plane and a real node: containerd + runc + CNI bridge, kubelet, kube-scheduler, kube-proxy",
  );
  const node = await startRealNodeCluster({ images });
  try {
    say(`» node ${node.node.name} (${node.node.address}) Ready in ${seconds(node.startMs)}`);
    await play(node);
    say(`\n» done in ${seconds(performance.now() - started)}`);
    if (keep) await holdOpen(node);
  } finally {
    say("» stopping the node (pods first, then kubelet, containerd) and the control plane");
    await node.stop();
  }
}

async function play(node: RealNodeCluster): Promise<void> {
  const { cluster } = node;
  say("» helm install swh deploy/chart --namespace swh-system --create-namespace --wait");
  installChart(cluster);
  say("\n$ kubectl get pods -A -o wide");
  say(await podTable(cluster.kubeConfig));

  say(
    `\n» a web Deployment (2 busybox httpd pods, readiness gate ${READINESS_GATE_PREFIX}web) and the SWH web`,
  );
  await cluster.kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await cluster.apply(
    [
      busyboxWebDeployment({
        name: "web",
        namespace: NAMESPACE,
        image: node.busyboxImage,
        replicas: 2,
        readinessGates: [`${READINESS_GATE_PREFIX}web`],
      }),
      serviceWithHealthchecks(
        { name: "web", namespace: NAMESPACE },
        {
          selector: { app: "web" },
          ports: [{ name: "http", port: 80, targetPort: "http" }],
          healthcheck: {
            initialDelaySeconds: 0,
            periodSeconds: 1,
            probes: [httpProbe("http", { path: "/healthz", timeoutSeconds: 1, failureThreshold: 2 })],
          },
        },
      ),
    ],
    { namespace: NAMESPACE },
  );
  const pods = await readyPods(cluster, 2);
  const clusterIP = await routed(node, pods);
  await traffic(clusterIP, "both pods pass their checks");

  const [failing] = pods;
  const name = failing?.metadata?.name ?? "";
  say(`\n» ${name}: rm ${HEALTHZ_FILE} inside the pod (kubectl exec): its check fails`);
  await execInPod(cluster.kubeConfig, { namespace: NAMESPACE, pod: name, container: WEB_CONTAINER }, [
    "rm",
    HEALTHZ_FILE,
  ]);
  await routed(node, pods.slice(1));
  await traffic(clusterIP, `${name} out of traffic`);
  say(`» ${name}: the file is back`);
  await execInPod(cluster.kubeConfig, { namespace: NAMESPACE, pod: name, container: WEB_CONTAINER }, [
    "sh",
    "-c",
    `echo ok > ${HEALTHZ_FILE}`,
  ]);
  await routed(node, pods);
  await traffic(clusterIP, `${name} back`);

  say(
    "\n» kubectl rollout restart deployment/web, with requests all along (new pods wait on the SWH's checks)",
  );
  await rollout(cluster, clusterIP);
  say("\n$ kubectl get pods -A -o wide");
  say(await podTable(cluster.kubeConfig));
}

async function readyPods(cluster: TestCluster, count: number): Promise<V1Pod[]> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  return waitFor(
    `${count} web pods Ready`,
    async () => {
      const list = await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: "app=web" });
      const pods = list.items.filter((p) => !p.metadata?.deletionTimestamp);
      const ready = pods.every((p) =>
        p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
      return pods.length === count && ready ? pods : undefined;
    },
    { timeoutMs: 120_000 },
  );
}

/** Waits until kube-proxy routes web:http to exactly `pods`; returns the ClusterIP. */
async function routed(node: RealNodeCluster, pods: readonly V1Pod[]): Promise<string> {
  const want = pods.map((p) => `${p.status?.podIP}:8080`).sort();
  await waitFor(`kube-proxy routes web:http to ${want.join(", ")}`, () => {
    const now = node.proxy.routedEndpoints({ namespace: NAMESPACE, name: "web", port: "http" });
    return now.join(" ") === want.join(" ");
  });
  const service = await node.cluster.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedService({ name: "web", namespace: NAMESPACE });
  return service.spec?.clusterIP ?? "";
}

async function traffic(clusterIP: string, what: string): Promise<void> {
  const count = await countHttp(clusterIP, 80, REQUESTS);
  say(`traffic  web  ${clusterIP}:80  (${REQUESTS} HTTP requests, ${what})  ${formatCount(count)}`);
}

async function rollout(cluster: TestCluster, clusterIP: string): Promise<void> {
  const apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  let stopped = false;
  const totals = { answered: 0, failed: 0 };
  const load = (async () => {
    while (!stopped) {
      const c = await countHttp(clusterIP, 80, 10);
      totals.answered += c.total - c.failed;
      totals.failed += c.failed;
    }
  })();
  const began = performance.now();
  await apps.patchNamespacedDeployment({
    name: "web",
    namespace: NAMESPACE,
    body: [
      {
        op: "add",
        path: "/spec/template/metadata/annotations",
        value: { "kubectl.kubernetes.io/restartedAt": new Date().toISOString() },
      },
    ],
  });
  await waitFor(
    "the rollout is complete",
    async () => {
      const d = await apps.readNamespacedDeployment({ name: "web", namespace: NAMESPACE });
      const s = d.status;
      return (
        (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
        s?.updatedReplicas === 2 &&
        s?.availableReplicas === 2 &&
        s?.replicas === 2
      );
    },
    { timeoutMs: 120_000 },
  );
  await readyPods(cluster, 2);
  stopped = true;
  await load;
  say(
    `rollout done in ${seconds(performance.now() - began)}: ${totals.answered} requests answered, ${totals.failed} failed`,
  );
}

async function holdOpen(node: RealNodeCluster): Promise<void> {
  say("\n» still running (--keep). From another shell, in this demo's network namespace:");
  say(
    `  nsenter --net=/proc/${process.pid}/ns/net env KUBECONFIG=${node.cluster.info.adminKubeconfigPath} kubectl get pods -A`,
  );
  say("  Ctrl-C stops it.");
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
