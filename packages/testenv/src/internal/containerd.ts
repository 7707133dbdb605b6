/**
 * containerd for the real node (Debian's 1.6, runc, CNI bridge): private config, root, state and socket under the
 * node's directory, so nothing of the machine's own containerd (if any) is touched. The CRI settings are the ones
 * ../shared/docs/REAL-NODE.md found necessary on these machines.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ManagedProcess, spawnLogged, waitUntilReady } from "./processes.js";

/** The containerd namespace the CRI plugin (and so the kubelet) uses. */
const CRI_NAMESPACE = "k8s.io";
const READY_TIMEOUT_MS = 30_000;

/** A running containerd. */
export interface Containerd {
  readonly process: ManagedProcess;
  /** `unix://…` for the kubelet's `containerRuntimeEndpoint`. */
  readonly endpoint: string;
  /** Runs `ctr` against this containerd in the CRI namespace; returns stdout. */
  ctr(args: readonly string[], input?: Buffer): string;
}

/** What the containerd config needs. */
export interface ContainerdOptions {
  dir: string;
  /** The sandbox image every pod starts with (built locally: nothing is pulled). */
  sandboxImage: string;
  /** Directory of the CNI network config (the bridge conflist). */
  cniConfDir: string;
}

/** Writes the config and starts containerd; resolves once it answers `ctr version`. */
export async function startContainerd(opts: ContainerdOptions): Promise<Containerd> {
  for (const sub of ["root", "state"]) mkdirSync(join(opts.dir, sub), { recursive: true });
  const socket = join(opts.dir, "containerd.sock");
  const configPath = join(opts.dir, "config.toml");
  writeFileSync(configPath, configToml(opts, socket));
  const proc = spawnLogged(
    "containerd",
    "containerd",
    [`--config=${configPath}`],
    join(opts.dir, "containerd.log"),
  );
  const ctr = (args: readonly string[], input?: Buffer) =>
    execFileSync("ctr", ["--address", socket, "--namespace", CRI_NAMESPACE, ...args], {
      encoding: "utf8",
      stdio: [input ? "pipe" : "ignore", "pipe", "pipe"],
      ...(input ? { input } : {}),
      maxBuffer: 64 * 1024 * 1024,
    });
  await waitUntilReady(
    proc,
    async () => {
      if (!existsSync(socket)) return false;
      ctr(["version"]);
      return true;
    },
    READY_TIMEOUT_MS,
  );
  return { process: proc, endpoint: `unix://${socket}`, ctr };
}

/**
 * Kills every task still running in the CRI namespace (containers the kubelet did not stop), removes every
 * container (the kubelet keeps stopped ones for a while) and the network namespaces containerd made for their
 * sandboxes (`/var/run/netns/cni-…`, a bind mount each). Returns the tasks that were still running, for the log.
 */
export function removeLeftoverContainers(containerd: Containerd): string[] {
  const running = lines(containerd.ctr(["tasks", "ls", "-q"]));
  for (const id of running) {
    try {
      containerd.ctr(["tasks", "kill", "--signal", "SIGKILL", id]);
    } catch {}
    try {
      containerd.ctr(["tasks", "rm", "--force", id]);
    } catch {}
  }
  for (const id of lines(containerd.ctr(["containers", "ls", "-q"]))) {
    let netns: string | undefined;
    try {
      const info = JSON.parse(containerd.ctr(["containers", "info", id])) as {
        Spec?: { linux?: { namespaces?: { type: string; path?: string }[] } };
      };
      netns = info.Spec?.linux?.namespaces?.find((n) => n.type === "network")?.path;
    } catch {}
    try {
      containerd.ctr(["containers", "rm", id]);
    } catch {}
    if (netns?.includes("/netns/cni-")) removeNetnsFile(netns);
  }
  return running;
}

function lines(text: string): string[] {
  return text.split("\n").filter(Boolean);
}

function removeNetnsFile(path: string): void {
  try {
    execFileSync("umount", [path], { stdio: "ignore" });
  } catch {}
  try {
    execFileSync("rm", ["-f", path], { stdio: "ignore" });
  } catch {}
}

function configToml(opts: ContainerdOptions, socket: string): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    "version = 2",
    `root = ${JSON.stringify(join(opts.dir, "root"))}`,
    `state = ${JSON.stringify(join(opts.dir, "state"))}`,
    "[grpc]",
    `  address = ${JSON.stringify(socket)}`,
    "[ttrpc]",
    `  address = ${JSON.stringify(`${socket}.ttrpc`)}`,
    `[${cri}]`,
    `  sandbox_image = ${JSON.stringify(opts.sandboxImage)}`,
    // Root here lacks CAP_SYS_RESOURCE: the -998 the kubelet asks for sandboxes would make runc fail.
    "  restrict_oom_score_adj = true",
    "  enable_unprivileged_ports = true",
    "  enable_unprivileged_icmp = true",
    '  stream_server_address = "127.0.0.1"',
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    "  SystemdCgroup = false",
    `[${cri}.cni]`,
    '  bin_dir = "/usr/lib/cni"',
    `  conf_dir = ${JSON.stringify(opts.cniConfDir)}`,
    "",
  ].join("\n");
}
