/**
 * The world of the demo and of the first end-to-end scenario: the original product's "two balancers on one VM"
 * example. Two pods ("mail-0" on node A, "mail-1" on node B) each run a web server (HTTP, 8080) and an SMTP server
 * (TCP, 2525); SWH "web" balances the web port with an HTTP probe, SWH "smtp" the SMTP port with a TCP probe.
 * A failing web server must take its pod out of "web" only; "smtp" keeps it, and vice versa.
 */
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import {
  ANNOTATION_DRAIN,
  httpProbe,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  tcpProbe,
} from "@swh/crd-types";
import { annotatePod, createNode, createPod, type TestCluster } from "@swh/testenv";
import { type Backend, startHttpBackend, startTcpBackend } from "./backends.js";
import { hasEndpoint, type ScenarioStep } from "./scenario.js";

/** The nodes, with the InternalIP a kubelet would register (kube-proxy needs its Node to have one). */
export const MAIL_NODES = [
  { name: "node-a", zone: "zone-a", address: "10.244.255.1" },
  { name: "node-b", zone: "zone-b", address: "10.244.255.2" },
] as const;

export interface MailPod {
  name: string;
  node: string;
  address: string;
  web: Backend;
  smtp: Backend;
}

/** The two SWHs of the example, as a user would write them. */
export function mailBalancers(namespace: string): ServiceWithHealthchecks[] {
  const healthcheck = { initialDelaySeconds: 0, periodSeconds: 1 };
  const timing = { timeoutSeconds: 1, failureThreshold: 2, successThreshold: 1 };
  return [
    serviceWithHealthchecks(
      { name: "web", namespace },
      {
        selector: { app: "mail" },
        ports: [{ name: "http", port: 80, targetPort: "http" }],
        healthcheck: { ...healthcheck, probes: [httpProbe("http", { path: "/healthz", ...timing })] },
      },
    ),
    serviceWithHealthchecks(
      { name: "smtp", namespace },
      {
        selector: { app: "mail" },
        ports: [{ name: "smtp", port: 25, targetPort: 2525 }],
        healthcheck: { ...healthcheck, probes: [tcpProbe(2525, timing)] },
      },
    ),
  ];
}

/** Creates the nodes (if missing), the namespace's two pods with their real backends, and the two SWHs. */
export async function createMailWorld(
  cluster: TestCluster,
  namespace: string,
  subnet: number,
): Promise<MailPod[]> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  for (const node of MAIL_NODES) {
    const exists = await core.readNode({ name: node.name }).then(
      () => true,
      () => false,
    );
    if (!exists)
      await createNode(cluster.kubeConfig, { name: node.name, zone: node.zone, addresses: [node.address] });
  }
  const pods: MailPod[] = [];
  for (const [i, node] of MAIL_NODES.entries()) {
    const address = `10.244.${subnet}.${10 + i}`;
    const name = `mail-${i}`;
    const pod: MailPod = {
      name,
      node: node.name,
      address,
      web: await startHttpBackend(address, 8080, name),
      smtp: await startTcpBackend(address, 2525, name),
    };
    await createPod(cluster.kubeConfig, {
      name: pod.name,
      namespace,
      node: node.name,
      ips: [address],
      labels: { app: "mail" },
      containerPorts: [
        { name: "http", containerPort: 8080 },
        { name: "smtp", containerPort: 2525 },
      ],
    });
    pods.push(pod);
  }
  await cluster.apply(mailBalancers(namespace), { namespace });
  return pods;
}

/** Sets (or, with `null`, removes) the drain annotation of a pod: how an operator takes a pod out (ADR 0034). */
export type DrainPod = (pod: string, from: string | null) => Promise<void>;

/** `DrainPod` by annotating the pods of `namespace`, as `kubectl annotate` would. */
export function drainByAnnotation(kc: KubeConfig, namespace: string): DrainPod {
  return (pod, from) => annotatePod(kc, namespace, pod, { [ANNOTATION_DRAIN]: from });
}

/**
 * Healthy → web of mail-0 fails → SMTP of mail-1 fails → both recover → mail-0 drained from "web" by its
 * annotation → the annotation removed, each checked per balancer.
 */
export function mailScenario(pods: readonly MailPod[], drain: DrainPod): ScenarioStep[] {
  const [a, b] = pods as [MailPod, MailPod];
  const allReady = (rows: Parameters<ScenarioStep["expect"]>[0]) =>
    pods.every((p) => hasEndpoint(rows, "web", p.name, true) && hasEndpoint(rows, "smtp", p.name, true));
  return [
    {
      title: "all backends healthy: every pod serves on both balancers",
      act: async () => {},
      expect: allReady,
    },
    {
      title: `${a.name}'s web server answers 503: out of "web" only, "smtp" keeps it`,
      act: () => a.web.setHealthy(false),
      expect: (rows) => hasEndpoint(rows, "web", a.name, false) && hasEndpoint(rows, "smtp", a.name, true),
    },
    {
      title: `${b.name}'s SMTP server stops listening: out of "smtp" only, "web" keeps it`,
      act: () => b.smtp.setHealthy(false),
      expect: (rows) =>
        hasEndpoint(rows, "smtp", b.name, false) &&
        hasEndpoint(rows, "web", b.name, true) &&
        hasEndpoint(rows, "web", a.name, false),
    },
    {
      title: "both recover: every pod serves on both balancers again",
      act: async () => {
        await a.web.setHealthy(true);
        await b.smtp.setHealthy(true);
      },
      expect: allReady,
    },
    {
      title: `${a.name} drained from "web" (kubectl annotate pod ${a.name} ${ANNOTATION_DRAIN}=web): out of "web" as Drained, its checks still pass, "smtp" keeps it`,
      act: () => drain(a.name, "web"),
      expect: (rows) =>
        hasEndpoint(rows, "web", a.name, false) &&
        hasEndpoint(rows, "smtp", a.name, true) &&
        hasEndpoint(rows, "web", b.name, true),
    },
    {
      title: 'the annotation removed: back in "web" at once, without waiting for thresholds',
      act: () => drain(a.name, null),
      expect: allReady,
    },
  ];
}
