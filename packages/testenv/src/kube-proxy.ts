/**
 * A real kube-proxy in the test network namespace, so tests and the demo can send requests to a Service's
 * ClusterIP and see where they land: it watches Services and EndpointSlices (ours included) and programs the
 * namespace's iptables or nftables rules exactly as on a node. See docs/control-plane.md for how this differs
 * from a real node.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { freePort } from "./internal/free-port.js";
import { httpGet } from "./internal/http-get.js";
import { killGroup, type ManagedProcess, spawnLogged, waitUntilReady } from "./internal/processes.js";
import type { TestCluster } from "./test-cluster.js";

/** The Service CIDRs of the test control plane (kube-apiserver's `--service-cluster-ip-range`). */
export const SERVICE_CIDRS = ["10.96.0.0/16", "fd00:10:96::/112"] as const;
/** Pod addresses (local in the network namespace); traffic from elsewhere is masqueraded, as on a node. */
const CLUSTER_CIDRS = ["10.244.0.0/16", "fd00:10:244::/64"] as const;
/** Namespace and name of the ServiceAccount every kube-proxy acts as. */
const IDENTITY = { namespace: "kube-system", name: "kube-proxy" } as const;
const READY_TIMEOUT_MS = 30_000;

/** Options of {@link startKubeProxy}. */
export interface StartKubeProxyOptions {
  /** The Node this kube-proxy stands for (`hostnameOverride`); it matters only for topology and traffic policies. */
  node: string;
  /** Data-plane backend; default "iptables". "nftables" needs a kernel with nf_tables (5.13+). */
  mode?: "iptables" | "nftables";
  /**
   * Shortest time between two rule syncs (`--iptables-min-sync-period` / nftables `minSyncPeriod`); default "1s",
   * kube-proxy's own default. Part of what a user waits for after an endpoint changes.
   */
  minSyncPeriod?: string;
  /**
   * Pod CIDRs (`clusterCIDR`): traffic to a Service from anywhere else is masqueraded. Default 10.244.0.0/16 and
   * fd00:10:244::/64, the simulated pods' addresses; a real node gives its CNI's pod subnet. One CIDR per IP family.
   */
  clusterCidrs?: readonly string[];
}

/** A running kube-proxy; `stop()` kills it and removes the rules it programmed. */
export interface KubeProxy {
  readonly node: string;
  readonly mode: "iptables" | "nftables";
  readonly pid: number;
  readonly logPath: string;
  /** `http://127.0.0.1:<port>/metrics` of this kube-proxy. */
  readonly metricsUrl: string;
  /** Resolves once kube-proxy has written its rules at least once more after this call (a full sync). */
  synced(): Promise<void>;
  /**
   * When kube-proxy last finished writing rules, for any IP family, in ms since the epoch (the newest of its gauges
   * `kubeproxy_sync_proxy_rules_last_timestamp_seconds`; each family syncs only for its own changes); 0 before
   * the first sync. Benchmarks time kube-proxy's share of a reaction with it.
   */
  lastSyncMs(): Promise<number>;
  /**
   * The endpoints (`address:port`, sorted) this kube-proxy sends new connections to for the Service port
   * `namespace/name:port` (`port` is the Service port's name) right now, read from the rules it programmed in this
   * network namespace: what traffic will do, without sampling it. Empty when the port has no endpoint.
   * `policy: "local"` reads the rules of a `Local` traffic policy instead (iptables only: the `KUBE-SVL-` chain
   * holds this node's endpoints).
   */
  routedEndpoints(service: {
    namespace: string;
    name: string;
    port: string;
    policy?: "cluster" | "local" | undefined;
  }): string[];
  stop(): Promise<void>;
}

/** At most one kube-proxy per network namespace: two would own (and rewrite, and clean up) the same rules. */
let running: KubeProxy | undefined;

/**
 * Starts kube-proxy for `opts.node` inside the current network namespace (refuses to run outside one: it would
 * rewrite the host's firewall), acting as ServiceAccount kube-system/kube-proxy bound to the bootstrap ClusterRole
 * `system:node-proxier`. Adds a route for the Service CIDRs over `lo` (a locally generated packet needs a route
 * before the OUTPUT hook can DNAT it) and resolves once the first rule sync is done.
 */
export async function startKubeProxy(cluster: TestCluster, opts: StartKubeProxyOptions): Promise<KubeProxy> {
  if (process.env.SWH_IN_NETNS !== "1") {
    throw new Error(
      "startKubeProxy: not in the private network namespace ($SWH_IN_NETNS is not 1); run through scripts/netns.sh",
    );
  }
  if (running) {
    throw new Error(
      `startKubeProxy(node ${opts.node}): kube-proxy for node ${running.node} already runs in this network ` +
        "namespace; they would share one rule set (see docs/control-plane.md)",
    );
  }
  const mode = opts.mode ?? "iptables";
  if (mode !== "iptables" && mode !== "nftables") {
    throw new Error(`startKubeProxy: mode must be "iptables" or "nftables", got ${JSON.stringify(mode)}`);
  }
  const bin = join(cluster.info.binDir, "kube-proxy");
  if (!existsSync(bin)) {
    throw new Error(
      `startKubeProxy: ${bin} does not exist (packages/testenv/scripts/build-binaries.sh builds it)`,
    );
  }
  await requireNodeAddress(cluster, opts.node);
  addServiceRoutes();
  const { kubeconfigPath } = await kubeProxyIdentity(cluster);

  const dir = join(cluster.info.workDir, "kube-proxy");
  mkdirSync(dir, { recursive: true });
  const [healthzPort, metricsPort] = [await freePort(), await freePort()];
  const configPath = join(dir, `${mode}.config.yaml`);
  writeFileSync(configPath, configYaml({ ...opts, mode, kubeconfigPath, healthzPort, metricsPort }));
  const proc = spawnLogged("kube-proxy", bin, [`--config=${configPath}`], join(dir, `${mode}.log`));
  // Last resort when the Node process exits without stop(): an orphaned kube-proxy would keep the namespace alive.
  const killOnExit = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", killOnExit);
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // One gauge per IP family (ms since the epoch; empty before the first sync).
  const syncTimes = async () =>
    (await httpGet(metricsUrl, { timeoutMs: 2_000 })).body
      .split("\n")
      .filter((l) => l.startsWith("kubeproxy_sync_proxy_rules_last_timestamp_seconds{"))
      .map((l) => Number(l.split(" ").at(-1)) * 1000);
  // The rules are in place once every family has synced.
  const allSyncedMs = async () => {
    const times = await syncTimes();
    return times.length === 0 ? 0 : Math.min(...times);
  };
  // Each family re-syncs only for its own changes: an IPv4-only slice moves only the IPv4 gauge.
  const lastSyncMs = async () => Math.max(0, ...(await syncTimes()));
  const synced = async () => {
    const since = Date.now();
    await waitUntilReady(proc, async () => (await allSyncedMs()) >= since, READY_TIMEOUT_MS);
  };
  const proxy: KubeProxy = {
    node: opts.node,
    mode,
    pid: proc.pid,
    logPath: proc.logPath,
    metricsUrl,
    synced,
    lastSyncMs,
    routedEndpoints: (service) => routedEndpoints(mode, service),
    stop: () => {
      process.off("exit", killOnExit);
      return stopKubeProxy(proxy, proc, bin, configPath);
    },
  };
  running = proxy;
  try {
    await waitUntilReady(proc, async () => (await allSyncedMs()) > 0, READY_TIMEOUT_MS);
  } catch (error) {
    // The start-up error says what went wrong; a failed clean-up after it would only hide it.
    await proxy.stop().catch(() => {});
    throw error;
  }
  return proxy;
}

async function stopKubeProxy(proxy: KubeProxy, proc: ManagedProcess, bin: string, configPath: string) {
  await killGroup(proc.pid);
  // kube-proxy leaves its rules behind on exit (as on a node, to keep traffic flowing); remove them.
  if (running === proxy) running = undefined;
  try {
    execFileSync(bin, [`--config=${configPath}`, "--cleanup"], { stdio: "pipe" });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "")
      .trim()
      .split("\n")
      .slice(-3)
      .join("\n");
    throw new Error(
      `kube-proxy --cleanup failed; its rules may remain in this network namespace:\n${stderr}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Reads the endpoints of one Service port from the programmed rules. iptables: the Service chain (`KUBE-SVC-`, or
 * `KUBE-SVL-` for a Local policy) jumps to one chain per endpoint, each jump commented `ns/name:port -> address:port`. nftables: the Service chain
 * `service-<hash>-ns/name/<protocol>/port` picks one of the chains `endpoint-<hash>-…__address/port`.
 */
function routedEndpoints(
  mode: "iptables" | "nftables",
  service: { namespace: string; name: string; port: string; policy?: "cluster" | "local" | undefined },
): string[] {
  const id = `${service.namespace}/${service.name}`;
  const found = new Set<string>();
  const local = service.policy === "local";
  if (local && mode !== "iptables") {
    throw new Error(`routedEndpoints(${id}:${service.port}): policy "local" is read in iptables mode only`);
  }
  if (mode === "iptables") {
    const prefix = `-m comment --comment "${id}:${service.port} -> `;
    const chain = local ? "-A KUBE-SVL-" : "-A KUBE-SVC-";
    for (const save of ["iptables-save", "ip6tables-save"]) {
      for (const line of execFileSync(save, ["-t", "nat"], { encoding: "utf8" }).split("\n")) {
        if (!line.startsWith(chain)) continue;
        const at = line.indexOf(prefix);
        if (at < 0) continue;
        const target = line.slice(at + prefix.length, line.indexOf('"', at + prefix.length));
        found.add(target.replace(/^\[(.*)\]:(\d+)$/, "$1:$2"));
      }
    }
  } else {
    const head = new RegExp(
      `^\\s*chain service-[A-Z0-9]+-${escapeRegExp(id)}/[a-z]+/${escapeRegExp(service.port)} \\{$`,
    );
    let inChain = false;
    for (const line of execFileSync("nft", ["list", "ruleset"], { encoding: "utf8" }).split("\n")) {
      if (head.test(line)) inChain = true;
      else if (inChain && line.trim() === "}") inChain = false;
      else if (inChain) {
        for (const ep of line.matchAll(/goto endpoint-\S+?__([^\s,/]+)\/(\d+)/g))
          found.add(`${ep[1]}:${ep[2]}`);
      }
    }
  }
  return [...found].sort();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * kube-proxy waits 30 s for its Node to have an address (NodeIPs), then carries on with loopback, and exits when
 * the addresses change later: a simulated node must be registered with one, as a kubelet would.
 */
async function requireNodeAddress(cluster: TestCluster, name: string): Promise<void> {
  const node = await cluster.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNode({ name })
    .catch((error: unknown) => {
      throw new Error(`startKubeProxy: node ${name} cannot be read (create it first with createNode)`, {
        cause: error,
      });
    });
  if (!node.status?.addresses?.some((a) => a.type === "InternalIP")) {
    throw new Error(
      `startKubeProxy: node ${name} has no InternalIP address (createNode({ addresses: [...] })); ` +
        "kube-proxy would wait 30 s for one",
    );
  }
}

/** `ip route replace <service CIDR> dev lo`, both families; idempotent. */
function addServiceRoutes(): void {
  for (const cidr of SERVICE_CIDRS) {
    const family = cidr.includes(":") ? "-6" : "-4";
    execFileSync("ip", [family, "route", "replace", cidr, "dev", "lo"], { stdio: "pipe" });
  }
}

/** ServiceAccount kube-system/kube-proxy bound to `system:node-proxier`, as kubeadm sets kube-proxy up. */
async function kubeProxyIdentity(cluster: TestCluster) {
  await cluster.apply([
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "swh-testenv:kube-proxy" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:node-proxier" },
      subjects: [{ kind: "ServiceAccount", ...IDENTITY }],
    },
  ]);
  return cluster.serviceAccountKubeConfig(IDENTITY.namespace, IDENTITY.name);
}

function configYaml(c: {
  node: string;
  mode: "iptables" | "nftables";
  minSyncPeriod?: string;
  clusterCidrs?: readonly string[];
  kubeconfigPath: string;
  healthzPort: number;
  metricsPort: number;
}): string {
  const minSyncPeriod = c.minSyncPeriod ?? "1s";
  return stringify({
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    clientConnection: { kubeconfig: c.kubeconfigPath },
    hostnameOverride: c.node,
    mode: c.mode,
    clusterCIDR: (c.clusterCidrs ?? CLUSTER_CIDRS).join(","),
    healthzBindAddress: `127.0.0.1:${c.healthzPort}`,
    metricsBindAddress: `127.0.0.1:${c.metricsPort}`,
    // conntrack sysctls are global (not per network namespace) and not writable here: leave them alone.
    conntrack: { maxPerCore: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
    iptables: { minSyncPeriod, syncPeriod: "30s", localhostNodePorts: false },
    nftables: { minSyncPeriod, syncPeriod: "30s" },
  });
}
