/**
 * A cluster with one real node: its own control plane (with the settings a kubelet needs), containerd + runc + the
 * CNI bridge, a kubelet, kube-scheduler and kube-proxy, all in the test's network namespace. Pods here are run by
 * the kubelet: images, projected tokens, probes, limits and pod IPs are real. What differs from a production node
 * is in docs/control-plane.md. One real node at a time per machine (containerd's shims and the kubelet's cgroups
 * use machine-wide paths).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { type ControlPlane, startControlPlane } from "./control-plane.js";
import { type Containerd, removeLeftoverContainers, startContainerd } from "./internal/containerd.js";
import { freePort } from "./internal/free-port.js";
import { startKubelet } from "./internal/kubelet.js";
import {
  addNodeAddress,
  removeCniChains,
  removeKubepodsCgroups,
  removeNodeLinks,
  unmountUnder,
  writeCniConfig,
} from "./internal/node-host.js";
import { killGroup, type ManagedProcess, spawnLogged } from "./internal/processes.js";
import { type KubeProxy, startKubeProxy } from "./kube-proxy.js";
import { makeCa } from "./make-ca.js";
import { BUSYBOX_IMAGE, buildNodeImages, PAUSE_IMAGE } from "./node-images.js";
import { clusterFromInfo, type TestCluster } from "./test-cluster.js";
import { waitFor } from "./wait-for.js";

/** The node's address (a /24 of its own, outside the simulated pods' 10.244.0.0/16). */
const NODE_ADDRESS = "172.30.0.2";
/** The CNI bridge's pod subnet. */
const POD_CIDR = "10.88.0.0/24";
const NODE_READY_TIMEOUT_MS = 60_000;
const PODS_GONE_TIMEOUT_MS = 45_000;

/** Options of {@link startRealNodeCluster}. */
export interface RealNodeClusterOptions {
  /** The Node's name; default "swh-node-1". */
  nodeName?: string;
  /** Local (podman) images to load into the node's containerd, e.g. the product's. The busybox image always is. */
  images?: readonly string[];
  /** Keep the work dirs (logs, kubelet and containerd state) after `stop()`. Default `$SWH_KEEP_WORKDIR === "1"`. */
  keepWorkDir?: boolean;
}

/** A running real-node cluster; `stop()` tears it all down. */
export interface RealNodeCluster {
  cluster: TestCluster;
  controlPlane: ControlPlane;
  node: { name: string; address: string; podCidr: string };
  proxy: KubeProxy;
  /** The workload image (Debian's static busybox: httpd, sh, …), already in the node's containerd. */
  busyboxImage: string;
  /** Where the node's logs are: containerd.log, kubelet.log, kube-scheduler.log. */
  dir: string;
  /** How long the start took, ms (control plane, runtime, images, node Ready, kube-proxy synced). */
  startMs: number;
  /** Loads more local (podman) images into the node's containerd. */
  loadImages(images: readonly string[]): void;
  /**
   * Removes every pod from the node (the kubelet stops them and tears down their networks), then stops the kubelet,
   * containerd and the control plane, and removes what pods leave on the host (mounts, sandbox network namespaces,
   * CNI bridge and chains, the node's address).
   */
  stop(): Promise<void>;
}

/**
 * Starts a control plane for a real node, the node itself (containerd, kubelet, kube-scheduler) and a kube-proxy
 * for it; resolves once the Node is Ready and kube-proxy has synced. Must run as root inside the private network
 * namespace (scripts/netns.sh).
 */
export async function startRealNodeCluster(opts: RealNodeClusterOptions = {}): Promise<RealNodeCluster> {
  const began = Date.now();
  requireHost();
  const name = opts.nodeName ?? "swh-node-1";
  const keepWorkDir = opts.keepWorkDir ?? process.env.SWH_KEEP_WORKDIR === "1";
  // On disk, not /dev/shm: containerd's images and the pods' volumes live here.
  const dir = mkdtempSync("/var/tmp/swh-node-");
  const processes: ManagedProcess[] = [];
  const killOnExit = () => {
    for (const p of processes) {
      try {
        process.kill(-p.pid, "SIGKILL");
      } catch {}
    }
  };
  process.once("exit", killOnExit);
  const clientCa = makeCa("swh-test-client-ca");
  let controlPlane: ControlPlane | undefined;
  let containerd: Containerd | undefined;
  let proxy: KubeProxy | undefined;
  let cluster: TestCluster | undefined;
  const stop = async () => {
    process.off("exit", killOnExit);
    await teardown({ dir, name, processes, cluster, controlPlane, containerd, proxy, keepWorkDir });
  };
  try {
    addNodeAddress(NODE_ADDRESS);
    controlPlane = await startControlPlane({
      node: {
        address: NODE_ADDRESS,
        clientCaPem: clientCa.certPem,
        kubeletClient: clientCa.issue({
          commonName: "kube-apiserver-kubelet-client",
          organizations: ["system:masters"],
          client: true,
        }),
      },
      keepWorkDir,
    });
    cluster = clusterFromInfo(controlPlane);
    const cniConfDir = join(dir, "cni");
    mkdirSync(cniConfDir);
    writeCniConfig(cniConfDir, POD_CIDR, join(dir, "ipam"));
    containerd = await startContainerd({
      dir: join(dir, "containerd"),
      sandboxImage: PAUSE_IMAGE,
      cniConfDir,
    });
    processes.push(containerd.process);
    buildNodeImages();
    const runtime = containerd;
    const loadImages = (images: readonly string[]) => importImages(runtime, images);
    loadImages([PAUSE_IMAGE, BUSYBOX_IMAGE, ...(opts.images ?? [])]);
    const binDir = controlPlane.binDir;
    for (const bin of ["kubelet", "kube-scheduler"]) {
      if (!existsSync(join(binDir, bin))) {
        throw new Error(
          `startRealNodeCluster: ${join(binDir, bin)} is missing (build-binaries.sh --node builds it)`,
        );
      }
    }
    processes.push(
      startKubelet({
        dir: join(dir, "kubelet"),
        binDir,
        name,
        address: NODE_ADDRESS,
        runtimeEndpoint: containerd.endpoint,
        clientCa,
        controlPlane,
        port: await freePort(),
        healthzPort: await freePort(),
      }),
      spawnLogged(
        "kube-scheduler",
        join(binDir, "kube-scheduler"),
        [`--kubeconfig=${controlPlane.adminKubeconfigPath}`, "--leader-elect=false", "--secure-port=0"],
        join(dir, "kube-scheduler.log"),
      ),
    );
    await waitForNodeReady(cluster, name, processes);
    proxy = await startKubeProxy(cluster, {
      node: name,
      // One CIDR per family (kube-proxy's rule): the node's pods are IPv4 only.
      clusterCidrs: [POD_CIDR],
    });
    return {
      cluster,
      controlPlane,
      node: { name, address: NODE_ADDRESS, podCidr: POD_CIDR },
      proxy,
      busyboxImage: BUSYBOX_IMAGE,
      dir,
      startMs: Date.now() - began,
      loadImages,
      stop,
    };
  } catch (error) {
    await stop().catch((stopError: unknown) =>
      console.error(`[@swh/testenv] real node teardown: ${stopError}`),
    );
    throw error;
  }
}

function requireHost(): void {
  if (process.env.SWH_IN_NETNS !== "1") {
    throw new Error(
      "startRealNodeCluster: not in the private network namespace; run through scripts/netns.sh",
    );
  }
  if (process.getuid?.() !== 0)
    throw new Error("startRealNodeCluster: needs root (containerd, kubelet, mounts)");
  for (const bin of ["containerd", "ctr", "runc", "buildah", "podman", "busybox", "/usr/lib/cni/bridge"]) {
    const found = bin.startsWith("/") ? existsSync(bin) : commandExists(bin);
    if (!found) {
      throw new Error(
        `startRealNodeCluster: ${bin} is missing (packages/testenv/scripts/install-node-tools.sh installs it)`,
      );
    }
  }
}

function commandExists(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** `podman save` → `ctr images import`: no registry is reachable, so the node gets images as files. */
function importImages(containerd: Containerd, images: readonly string[]): void {
  if (images.length === 0) return;
  const archive = execFileSync("podman", ["save", "--quiet", "--format", "docker-archive", "-m", ...images], {
    maxBuffer: 2 * 1024 * 1024 * 1024,
  });
  containerd.ctr(["images", "import", "-"], archive);
}

async function waitForNodeReady(cluster: TestCluster, name: string, processes: readonly ManagedProcess[]) {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  await waitFor(
    `node ${name} Ready`,
    async () => {
      for (const p of processes) {
        try {
          process.kill(p.pid, 0);
        } catch {
          throw new Error(`${p.name} exited; log: ${p.logPath}`);
        }
      }
      const node = await core.readNode({ name });
      const ready = node.status?.conditions?.find((c) => c.type === "Ready");
      if (ready?.status !== "True")
        throw new Error(`Ready: ${ready?.status} ${ready?.reason} ${ready?.message}`);
      // The node-lifecycle controller lifts the not-ready taint a moment after Ready.
      if (node.spec?.taints?.some((t) => t.key.startsWith("node.kubernetes.io/"))) {
        throw new Error(`taints: ${JSON.stringify(node.spec.taints)}`);
      }
      return true;
    },
    { timeoutMs: NODE_READY_TIMEOUT_MS },
  );
}

interface TeardownParts {
  dir: string;
  name: string;
  processes: ManagedProcess[];
  cluster: TestCluster | undefined;
  controlPlane: ControlPlane | undefined;
  containerd: Containerd | undefined;
  proxy: KubeProxy | undefined;
  keepWorkDir: boolean;
}

/**
 * The order ../shared/docs/REAL-NODE.md found: pods off the node while the kubelet runs (it tears down their
 * networks and volumes), then the kubelet, leftovers through containerd, mounts, containerd, host links and chains,
 * the control plane last.
 */
async function teardown(parts: TeardownParts): Promise<void> {
  const { dir, processes } = parts;
  const byName = (n: string) => processes.find((p) => p.name === n);
  await parts.proxy?.stop().catch((error: unknown) => console.error(`[@swh/testenv] ${error}`));
  const scheduler = byName("kube-scheduler");
  if (scheduler) await killGroup(scheduler.pid);
  if (parts.cluster && parts.containerd && byName("kubelet")) {
    await removePods(parts.cluster, parts.name, parts.containerd).catch((error: unknown) =>
      console.error(`[@swh/testenv] real node: pods not all stopped by the kubelet: ${error}`),
    );
  }
  const kubelet = byName("kubelet");
  if (kubelet) await killGroup(kubelet.pid);
  if (parts.containerd) {
    const left = removeLeftoverContainers(parts.containerd);
    if (left.length > 0)
      console.error(`[@swh/testenv] real node: killed containers still running ${left.join(", ")}`);
  }
  unmountUnder(join(dir, "kubelet"));
  if (parts.containerd) await killGroup(parts.containerd.process.pid);
  unmountUnder(join(dir, "containerd"));
  const cgroups = removeKubepodsCgroups();
  if (cgroups.length > 0)
    console.error(`[@swh/testenv] real node: cgroups still in use: ${cgroups.join(", ")}`);
  removeNodeLinks();
  removeCniChains();
  await parts.controlPlane?.stop();
  if (!parts.keepWorkDir) rmSync(dir, { recursive: true, force: true });
}

/** Force-deletes every pod bound to the node and waits until containerd runs no container for it. */
async function removePods(cluster: TestCluster, node: string, containerd: Containerd): Promise<void> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
  await Promise.all(
    pods.items.map((pod) =>
      core
        .deleteNamespacedPod({
          name: pod.metadata?.name ?? "",
          namespace: pod.metadata?.namespace ?? "",
          gracePeriodSeconds: 0,
        })
        .catch(() => {}),
    ),
  );
  await waitFor("the kubelet stopped every pod", () => containerd.ctr(["tasks", "ls", "-q"]).trim() === "", {
    timeoutMs: PODS_GONE_TIMEOUT_MS,
    intervalMs: 500,
  });
}
