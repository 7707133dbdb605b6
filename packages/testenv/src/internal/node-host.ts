/**
 * The host side of the real node, in the test's network namespace: the node's address (a bridge without ports:
 * this kernel has no dummy links), the CNI network config, and the clean-up of what pods leave on the host
 * (mounts under the node's directories, CNI bridge and NAT chains).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Bridge carrying the node's address. */
const NODE_LINK = "swhnode0";
/** Bridge the CNI plugin puts pods on (its gateway address is the pod subnet's first). */
const POD_BRIDGE = "swhcni0";

/** Gives the namespace the node's address `address`/24, an on-link default route and IPv4 forwarding. */
export function addNodeAddress(address: string): void {
  ip(["link", "add", NODE_LINK, "type", "bridge"]);
  ip(["addr", "add", `${address}/24`, "dev", NODE_LINK]);
  ip(["link", "set", NODE_LINK, "up"]);
  const gateway = address.replace(/\.\d+$/, ".1");
  ip(["route", "add", "default", "via", gateway, "dev", NODE_LINK, "onlink"]);
  writeFileSync("/proc/sys/net/ipv4/ip_forward", "1\n");
}

/** Removes the node's and the pods' bridges (and so the default route); missing ones are fine. */
export function removeNodeLinks(): void {
  for (const link of [POD_BRIDGE, NODE_LINK]) {
    try {
      ip(["link", "del", link]);
    } catch {}
  }
}

/** The CNI conflist: bridge (gateway, masquerade, hairpin) + host-local IPAM on `podCidr` + portmap. */
export function writeCniConfig(confDir: string, podCidr: string, ipamDir: string): void {
  const conf = {
    cniVersion: "1.0.0",
    name: "swh-pods",
    plugins: [
      {
        type: "bridge",
        bridge: POD_BRIDGE,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: podCidr }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: ipamDir,
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  };
  writeFileSync(join(confDir, "10-swh-pods.conflist"), JSON.stringify(conf, null, 2));
}

/** Unmounts everything mounted at or under `dir`, deepest first (projected-volume tmpfs, overlay rootfs, …). */
export function unmountUnder(dir: string): string[] {
  const mounts = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((m): m is string => m !== undefined)
    // mountinfo escapes space, tab, newline and backslash as octal.
    .map((m) =>
      m.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))),
    )
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const mount of mounts) {
    try {
      execFileSync("umount", [mount], { stdio: "pipe" });
    } catch {
      execFileSync("umount", ["--lazy", mount], { stdio: "pipe" });
    }
  }
  return mounts;
}

/**
 * Deletes the NAT chains the CNI plugins made (`CNI-…`: bridge's masquerade, portmap's host ports) for pods whose
 * teardown did not run, and the rules that jump to them: the nat table is written back without them (kube-proxy
 * has removed its own rules by then).
 */
export function removeCniChains(): void {
  const saved = execFileSync("iptables-save", ["-t", "nat"], { encoding: "utf8" });
  if (!saved.includes("CNI-")) return;
  const kept = saved
    .split("\n")
    .filter((line) => !/^:CNI-/.test(line) && !(line.startsWith("-A ") && line.includes("CNI-")))
    .join("\n");
  execFileSync("iptables-restore", [], { input: kept, stdio: ["pipe", "pipe", "pipe"] });
}

/**
 * Removes the kubelet's cgroups (`kubepods/…` in every cgroup v1 hierarchy, or under the v2 root), deepest first,
 * once their processes are gone: a kubelet stopped from outside leaves them behind. Returns the ones that remain
 * (still holding a process).
 */
export function removeKubepodsCgroups(root = "/sys/fs/cgroup"): string[] {
  const tops = [join(root, "kubepods"), ...readdirSync(root).map((h) => join(root, h, "kubepods"))].filter(
    (d) => existsSync(d),
  );
  const remaining: string[] = [];
  const remove = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) remove(join(dir, entry.name));
    }
    try {
      rmdirSync(dir);
    } catch {
      remaining.push(dir);
    }
  };
  for (const top of [...new Set(tops)]) remove(top);
  return remaining;
}

function ip(args: readonly string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}
