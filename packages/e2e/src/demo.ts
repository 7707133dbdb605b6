/**
 * The README demo: the product end to end on a local control plane. Starts etcd + kube-apiserver, installs the
 * CRD and the chart's RBAC, runs two controller replicas and one agent per node as real processes with their own
 * ServiceAccounts, starts real backends on pod addresses, applies the example SWHs, plays a scripted scenario
 * (backends failing and recovering) while printing the per-port endpoint table and, beside it, where real requests
 * to each SWH's ClusterIP land (a real kube-proxy in the namespace routes them), drains a pod by its annotation,
 * shows topology hints keeping a client in its zone (`demo-hints.ts`), and ends with a summary.
 * `--keep` leaves everything running until Ctrl-C and prints how to use kubectl against it.
 * Run through `./scripts/run demo` (it provides the network namespace and the binaries).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { GROUP, PLURAL, type ServiceWithHealthchecks, VERSION } from "@swh/crd-types";
import {
  clusterFromInfo,
  type KubeProxy,
  kubeconfigYaml,
  startControlPlane,
  startKubeProxy,
  type TestCluster,
  waitFor,
} from "@swh/testenv";
import { type BalancerPort, measureBalancers, renderBalancerTraffic } from "./balancer-traffic.js";
import { showTopologyHints } from "./demo-hints.js";
import { createMailWorld, drainByAnnotation, MAIL_NODES, type MailPod, mailScenario } from "./mail-world.js";
import { installProduct, Product } from "./product.js";
import { runScenario } from "./scenario.js";
import { CLIENT_ADDRESS } from "./traffic.js";

const NAMESPACE = "demo";
/** Requests per balancer after every step. */
const REQUESTS = 50;
const keep = process.argv.includes("--keep");
const say = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<number> {
  const started = performance.now();
  say(
    "» starting etcd + kube-apiserver + kube-controller-manager (local processes, private network namespace)",
  );
  const controlPlane = await startControlPlane();
  const cluster = clusterFromInfo(controlPlane);
  const product = new Product(cluster);
  const pods: MailPod[] = [];
  let proxy: KubeProxy | undefined;
  try {
    say(`» control plane ready at ${controlPlane.server}`);
    say("» installing the CRD and the chart's namespace + RBAC (deploy/manifests)");
    await installProduct(cluster);
    await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: NAMESPACE } } });
    say("» creating nodes, pods with real web (HTTP :8080) and SMTP (TCP :2525) servers, and two SWHs");
    pods.push(...(await createMailWorld(cluster, NAMESPACE, 1)));
    say("» starting 2 controller replicas and one agent per node (as their own ServiceAccounts)");
    await product.startController();
    await product.startController();
    for (const node of MAIL_NODES) await product.startAgent(node.name);
    say(
      `» starting kube-proxy (iptables mode) for ${MAIL_NODES[0].name}: it routes ClusterIP traffic from our slices`,
    );
    proxy = await startKubeProxy(cluster, { node: MAIL_NODES[0].name, mode: "iptables" });
    const balancers = await mailBalancerPorts(cluster);
    say(
      `» after each step: ${REQUESTS} requests to each ClusterIP from ${CLIENT_ADDRESS}, counted per answering pod`,
    );

    const outcomes = await runScenario(
      cluster.kubeConfig,
      NAMESPACE,
      mailScenario(pods, drainByAnnotation(cluster.kubeConfig, NAMESPACE)),
      {
        timeoutMs: 45_000,
        onStep: (title) => say(`\n== ${title}`),
        onTable: (table) => say(`${table}\n`),
        afterStep: async (rows) => {
          say(renderBalancerTraffic(await measureBalancers(balancers, rows, REQUESTS)));
        },
      },
    );

    const hinted = await showTopologyHints(cluster, proxy, NAMESPACE, pods, { requests: REQUESTS, say });

    say("\n== summary");
    for (const o of outcomes)
      say(`${o.converged ? "ok  " : "FAIL"} ${(o.elapsedMs / 1000).toFixed(1).padStart(5)} s  ${o.title}`);
    say(
      `${hinted ? "ok  " : "FAIL"}          topology hints keep traffic in the client's zone, and fall back`,
    );
    say("");
    say(await swhTable(cluster.kubeConfig));
    say(`\nlogs of the apps: ${product.logDir}`);
    say(`demo took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const ok = hinted && outcomes.every((o) => o.converged);

    if (keep) {
      const kubeconfig = join(product.logDir, "admin.kubeconfig");
      writeFileSync(kubeconfig, kubeconfigYaml(controlPlane, controlPlane.adminToken, "swh-admin"), {
        mode: 0o600,
      });
      say(
        "\n» still running (--keep). The API server lives in this demo's network namespace; from another shell:",
      );
      say(
        `  nsenter --net=/proc/${process.pid}/ns/net env KUBECONFIG=${kubeconfig} kubectl get swh -n ${NAMESPACE}`,
      );
      say("  Ctrl-C stops everything.");
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
    }
    return ok ? 0 : 1;
  } finally {
    await proxy?.stop();
    await product.stop();
    for (const p of pods) {
      await p.web.close();
      await p.smtp.close();
    }
    await controlPlane.stop();
  }
}

/** The two balancers of the example as a client reaches them: the ClusterIPs of the Services the controller made. */
async function mailBalancerPorts(cluster: TestCluster): Promise<BalancerPort[]> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const clusterIP = (name: string) =>
    waitFor(`Service ${name} has a ClusterIP`, async () => {
      return (await core.readNamespacedService({ name, namespace: NAMESPACE })).spec?.clusterIP;
    });
  return [
    { swh: "web", port: 80, protocol: "http", clusterIP: await clusterIP("web") },
    { swh: "smtp", port: 25, protocol: "tcp", clusterIP: await clusterIP("smtp") },
  ];
}

/** `kubectl get swh`-like text from the SWHs' status, as the controller wrote it. */
async function swhTable(kc: KubeConfig): Promise<string> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const list = (await api.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: NAMESPACE,
    plural: PLURAL,
  })) as {
    items: ServiceWithHealthchecks[];
  };
  const lines = ["NAME     CLUSTER-IP     READY-CONDITION  PORTS (ready/total)"];
  for (const swh of list.items) {
    const ready = swh.status?.conditions?.find((c) => c.type === "Ready");
    const ports = (swh.status?.ports ?? [])
      .map((p) => `${p.name ?? p.port}:${p.readyEndpoints}/${p.totalEndpoints}`)
      .join(" ");
    lines.push(
      `${(swh.metadata.name ?? "").padEnd(8)} ${(swh.status?.clusterIP ?? "-").padEnd(14)} ${(ready?.status ?? "-").padEnd(16)} ${ports}`,
    );
  }
  return lines.join("\n");
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
