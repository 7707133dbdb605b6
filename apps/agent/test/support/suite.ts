/**
 * Per-file setup of the agent's integration suites: the shipped CRD and RBAC installed once, and `scenario()`
 * giving each test its own namespace, node, in-process agent and third address octet, all cleaned up after it.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { ProbeSpec } from "@swh/crd-types";
import {
  type CountingProxy,
  createNode,
  createPod,
  enableCredentialsNamespaces,
  kubeConfigForToken,
  type PodSpecLite,
  startCountingProxy,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { afterEach, beforeAll } from "vitest";
import {
  agentKubeConfig,
  type Backend,
  clients,
  installAgent,
  type PublishedEndpoint,
  published,
  startAgent,
  startBackend,
} from "./harness.js";

export interface AgentSuite {
  cluster: TestCluster;
  admin: ReturnType<typeof clients>;
  agentKubeConfig: KubeConfig;
  /** The agent ServiceAccount's token. */
  agentToken: string;
  /** Registers a cleanup run after the current test (last in, first out). */
  cleanup(fn: () => Promise<unknown>): void;
  /**
   * A fresh namespace, node and agent. `credentials: true` enables the namespace's credentials Secrets for its
   * agent as an administrator would with the chart (RoleBinding + flag). `proxied: true` runs the agent through
   * a counting proxy (`Scenario.proxy`) that records its requests.
   */
  scenario(prefix: string, opts?: { credentials?: boolean; proxied?: boolean }): Promise<Scenario>;
}

interface Scenario {
  namespace: string;
  node: string;
  /** `10.244.<octet>`: this test's pod addresses. */
  net: string;
  agent: Awaited<ReturnType<typeof startAgent>>;
  /** The agent's requests, when the scenario is `proxied`. */
  proxy: CountingProxy | undefined;
  /** Creates a running pod of this scenario's namespace on its node. */
  pod(
    name: string,
    ips: string[],
    labels: Record<string, string>,
    extra?: Partial<PodSpecLite>,
  ): Promise<void>;
  backend(ip: string, port: number): Promise<Backend>;
  slices(): ReturnType<ReturnType<typeof clients>["slices"]>;
  waitEndpoint(
    description: string,
    swh: string,
    port: number,
    address: string,
    check: (e: PublishedEndpoint) => boolean,
  ): Promise<PublishedEndpoint>;
}

/** Sets up a suite (hooks included); `firstOctet` keeps address ranges of different files apart. */
export function agentSuite(firstOctet: number): AgentSuite {
  let octet = firstOctet;
  const cleanups: (() => Promise<unknown>)[] = [];
  const suite = {
    cleanup: (fn: () => Promise<unknown>) => {
      cleanups.push(fn);
    },
  } as AgentSuite;

  beforeAll(async () => {
    suite.cluster = await testCluster();
    suite.admin = clients(suite.cluster.kubeConfig);
    await installAgent(suite.cluster);
    const identity = await agentKubeConfig(suite.cluster);
    suite.agentKubeConfig = identity.kubeConfig;
    suite.agentToken = identity.token;
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  suite.scenario = async (prefix, opts = {}) => {
    const { cluster, admin } = suite;
    const namespace = await cluster.createNamespace(prefix);
    const node = `n-${namespace}`;
    await createNode(cluster.kubeConfig, { name: node, zone: "zone-a" });
    const net = `10.244.${octet++}`;
    if (opts.credentials) await enableCredentialsNamespaces(cluster, [namespace]);
    const proxy = opts.proxied
      ? await startCountingProxy({ server: cluster.info.server, caPem: cluster.info.caPem })
      : undefined;
    if (proxy) suite.cleanup(() => proxy.close());
    const kubeConfig = proxy
      ? kubeConfigForToken(proxy, suite.agentToken, "swh-agent")
      : suite.agentKubeConfig;
    const agent = await startAgent(kubeConfig, node, {
      credentialsNamespaces: opts.credentials ? [namespace] : [],
    });
    suite.cleanup(() => agent.stop());
    const slices = () => admin.slices(namespace);
    return {
      namespace,
      node,
      net,
      agent,
      proxy,
      slices,
      pod: (name, ips, labels, extra) =>
        createPod(cluster.kubeConfig, { name, namespace, node, ips, labels, ...extra }),
      backend: async (ip, port) => {
        const b = await startBackend(ip, port);
        suite.cleanup(() => b.close());
        return b;
      },
      waitEndpoint: (description, swh, port, address, check) =>
        waitFor(`${description} (${swh} ${address}:${port})`, async () => {
          const e = published(await slices(), swh, port, address);
          return e && check(e) ? e : undefined;
        }),
    };
  };
  return suite;
}

/** An HTTP probe spec (timeout 1 s). */
export const http = (
  targetPort: number | string,
  path = "/healthz",
  extra: Partial<ProbeSpec> = {},
): ProbeSpec => ({
  mode: "HTTP",
  timeoutSeconds: 1,
  http: { targetPort, path },
  ...extra,
});

/** A TCP probe spec (timeout 1 s). */
export const tcp = (targetPort: number | string): ProbeSpec => ({
  mode: "TCP",
  timeoutSeconds: 1,
  tcp: { targetPort },
});
