/**
 * The real node's kubelet: a client certificate for `system:node:<name>` (group `system:nodes`, so the Node
 * authorizer and NodeRestriction confine it), its own root dir, and the KubeletConfiguration settings
 * ../shared/docs/REAL-NODE.md found necessary here (cgroup v1, cgroupfs, no swap check, no resolv.conf).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { ControlPlaneInfo } from "../control-plane-info.js";
import type { CertificateAuthority } from "../make-ca.js";
import { type ManagedProcess, spawnLogged } from "./processes.js";

/** What {@link startKubelet} needs. */
export interface KubeletOptions {
  dir: string;
  binDir: string;
  name: string;
  address: string;
  /** `unix://…` of containerd. */
  runtimeEndpoint: string;
  clientCa: CertificateAuthority;
  controlPlane: ControlPlaneInfo;
  port: number;
  healthzPort: number;
}

/** Starts the kubelet; it registers its Node itself. */
export function startKubelet(opts: KubeletOptions): ManagedProcess {
  const pki = join(opts.dir, "pki");
  mkdirSync(pki, { recursive: true, mode: 0o700 });
  const client = opts.clientCa.issue({
    commonName: `system:node:${opts.name}`,
    organizations: ["system:nodes"],
    client: true,
  });
  writeFileSync(join(pki, "client-ca.crt"), opts.clientCa.certPem);
  const kubeconfigPath = join(opts.dir, "kubelet.kubeconfig");
  writeFileSync(kubeconfigPath, certKubeconfig(opts.controlPlane, opts.name, client), { mode: 0o600 });
  const configPath = join(opts.dir, "kubelet.config.yaml");
  writeFileSync(configPath, configYaml(opts, join(pki, "client-ca.crt")));
  return spawnLogged(
    "kubelet",
    join(opts.binDir, "kubelet"),
    [
      `--config=${configPath}`,
      `--kubeconfig=${kubeconfigPath}`,
      `--hostname-override=${opts.name}`,
      `--node-ip=${opts.address}`,
      `--root-dir=${join(opts.dir, "root")}`,
      `--cert-dir=${pki}`,
      "--v=1",
    ],
    join(opts.dir, "kubelet.log"),
  );
}

function configYaml(opts: KubeletOptions, clientCaPath: string): string {
  return stringify({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    address: opts.address,
    port: opts.port,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: opts.healthzPort,
    containerRuntimeEndpoint: opts.runtimeEndpoint,
    // These machines run cgroup v1 (hybrid) and no systemd cgroup manager.
    failCgroupV1: false,
    cgroupDriver: "cgroupfs",
    failSwapOn: false,
    // No cluster DNS: pods get dnsPolicy Default semantics without the host's resolv.conf.
    resolvConf: "",
    // The apiserver authenticates with its kubelet client certificate; everything else asks the apiserver.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: clientCaPath },
    },
    authorization: { mode: "Webhook" },
    // Images cannot be pulled again here: never garbage-collect them, never evict for disk on a busy machine.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: { "memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
    // Status every few seconds, so a test sees a Ready node soon after start.
    nodeStatusUpdateFrequency: "4s",
    staticPodPath: "",
    serializeImagePulls: false,
  });
}

function certKubeconfig(
  cp: ControlPlaneInfo,
  node: string,
  client: { certPem: string; keyPem: string },
): string {
  const user = `system:node:${node}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "swh-test",
        cluster: {
          server: cp.server,
          "certificate-authority-data": Buffer.from(cp.caPem).toString("base64"),
        },
      },
    ],
    users: [
      {
        name: user,
        user: {
          "client-certificate-data": Buffer.from(client.certPem).toString("base64"),
          "client-key-data": Buffer.from(client.keyPem).toString("base64"),
        },
      },
    ],
    contexts: [{ name: "kubelet", context: { cluster: "swh-test", user } }],
    "current-context": "kubelet",
  });
}
