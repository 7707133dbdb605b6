import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AuditLogOptions, auditLogArgs } from "./audit-log.js";
import type { ControlPlaneInfo } from "./control-plane-info.js";
import { spawnApiServer, waitForApiServer } from "./internal/api-server.js";
import { freePort } from "./internal/free-port.js";
import { httpGet } from "./internal/http-get.js";
import {
  killGroup,
  logTail,
  type ManagedProcess,
  spawnLogged,
  waitUntilReady,
} from "./internal/processes.js";
import {
  type ControlPlaneState,
  type RecordedProcess,
  readState,
  writeState,
} from "./internal/state-file.js";
import { SERVICE_CIDRS } from "./kube-proxy.js";
import { kubeconfigYaml } from "./kubeconfig.js";
import { makeCa } from "./make-ca.js";

/** A running control plane; `stop()` kills every process it started and removes its temp dir. */
export interface ControlPlane extends ControlPlaneInfo {
  stop(): Promise<void>;
}

/** Options of {@link startControlPlane}. */
export interface StartControlPlaneOptions {
  /** Also run kube-controller-manager (garbage-collector + namespace controllers only). Default true. */
  controllerManager?: boolean;
  /**
   * More kube-controller-manager controllers to run, by name (e.g. `endpointslice-controller`, for a benchmark
   * that compares with Services that have selectors). Default: none.
   */
  extraControllers?: readonly string[];
  /** Directory with the binaries; default `$SWH_BIN_DIR`, else the output of `scripts/build-binaries.sh`. */
  binDir?: string;
  /** Keep the work dir (logs, etcd data) after `stop()`, for debugging. Default `$SWH_KEEP_WORKDIR === "1"`. */
  keepWorkDir?: boolean;
  /** Write an audit log of these ServiceAccounts' requests (`ControlPlaneInfo.auditLogPath`). Default: none. */
  auditLog?: AuditLogOptions;
  /**
   * Serve a real kubelet (`startRealNodeCluster`): listen on every address, advertise `address` (the node's, so
   * the `kubernetes` Service reaches the apiserver from pods), accept client certificates signed by `clientCaPem`,
   * authorize with Node + RBAC, keep ServiceAccount admission on (pods get projected tokens), add NodeRestriction,
   * and run the kube-controller-manager controllers Deployments and DaemonSets need. Default: none (API objects
   * only, ServiceAccount admission off).
   */
  node?: NodeServingOptions;
}

/** What kube-apiserver needs to serve a real kubelet: see {@link StartControlPlaneOptions.node}. */
export interface NodeServingOptions {
  /** The node's IPv4 address (local to the network namespace by the time pods start). */
  address: string;
  /** CA of the kubelet's client certificate (`system:node:<name>`). */
  clientCaPem: string;
  /** Client certificate and key (signed by `clientCaPem`'s CA) the apiserver shows the kubelet for logs and exec. */
  kubeletClient: { certPem: string; keyPem: string };
}

/** The controllers a real node needs besides the garbage collector and namespace controllers. */
const NODE_CONTROLLERS = [
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
  "deployment-controller",
  "replicaset-controller",
  "daemonset-controller",
  "disruption-controller",
  "endpointslice-controller",
  "node-lifecycle-controller",
] as const;

/**
 * Pod addresses live in 10.244.0.0/16; the apiserver needs a non-loopback address to advertise. It
 * only advertises it (the endpoint reconciler is off), so it need not be local.
 */
const ADVERTISE_ADDRESS = "10.244.255.254";
const ETCD_READY_TIMEOUT_MS = 30_000;

/**
 * Starts etcd, kube-apiserver (RBAC, token auth, ServiceAccount token issuing, TLS) and, unless
 * disabled, kube-controller-manager with only the garbage-collector and namespace controllers.
 * Resolves once `/readyz` is ok; throws with the failing process's log tail otherwise (after
 * stopping whatever had started).
 */
export async function startControlPlane(opts: StartControlPlaneOptions = {}): Promise<ControlPlane> {
  const binDir = opts.binDir ?? resolveBinDir();
  for (const bin of ["etcd", "kube-apiserver", "kube-controller-manager"]) {
    if (!existsSync(join(binDir, bin))) throw new Error(`binDir: ${join(binDir, bin)} does not exist`);
  }
  const keepWorkDir = opts.keepWorkDir ?? process.env.SWH_KEEP_WORKDIR === "1";
  const workDir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "swh-cp-"));
  const started: ManagedProcess[] = [];
  const lifecycle = { stopping: false };
  const statePath = join(workDir, "state.json");
  const killAllSync = () => {
    // Last resort when the Node process exits without stop(): no orphaned control plane.
    for (const pid of currentPids(statePath, started)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
    if (!keepWorkDir) rmSync(workDir, { recursive: true, force: true });
  };
  process.once("exit", killAllSync);

  const stop = async () => {
    lifecycle.stopping = true;
    process.off("exit", killAllSync);
    const pids = currentPids(statePath, started);
    // Reverse start order: controller-manager, apiserver, etcd.
    for (const pid of pids.reverse()) await killGroup(pid);
    if (!keepWorkDir) rmSync(workDir, { recursive: true, force: true });
  };

  try {
    const info = await startProcesses(
      binDir,
      workDir,
      statePath,
      started,
      lifecycle,
      opts.controllerManager ?? true,
      opts.auditLog,
      opts.extraControllers ?? [],
      opts.node,
    );
    return { ...info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startProcesses(
  binDir: string,
  workDir: string,
  statePath: string,
  started: ManagedProcess[],
  lifecycle: { stopping: boolean },
  withControllerManager: boolean,
  auditLog: AuditLogOptions | undefined,
  extraControllers: readonly string[],
  node: NodeServingOptions | undefined,
): Promise<ControlPlaneInfo> {
  const logs = join(workDir, "logs");
  mkdirSync(logs);

  // --- etcd ---
  const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
  const etcd: RecordedProcess = {
    pid: 0,
    logPath: join(logs, "etcd.log"),
    command: join(binDir, "etcd"),
    args: [
      "--name=swh-test",
      `--data-dir=${join(workDir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=swh-test=${peerUrl}`,
      "--unsafe-no-fsync=true",
      "--log-level=warn",
    ],
  };
  const etcdProc = spawnLogged("etcd", etcd.command, etcd.args, etcd.logPath);
  started.push(etcdProc);
  watchForDeath(etcdProc);
  etcd.pid = etcdProc.pid;
  await waitUntilReady(
    etcdProc,
    async () => {
      const res = await httpGet(`${etcdUrl}/health`, { timeoutMs: 2_000 });
      return res.status === 200 && res.body.includes('"health":"true"');
    },
    ETCD_READY_TIMEOUT_MS,
  );

  // --- kube-apiserver ---
  const pki = join(workDir, "pki");
  mkdirSync(pki, { mode: 0o700 });
  const adminToken = randomBytes(24).toString("hex");
  writeFileSync(join(pki, "tokens.csv"), `${adminToken},swh-admin,swh-admin,"system:masters"\n`, {
    mode: 0o600,
  });
  const saKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  writeFileSync(join(pki, "sa.key"), saKey.export({ type: "pkcs8", format: "pem" }) as string, {
    mode: 0o600,
  });
  const ca = makeCa("swh-test-apiserver-ca");
  const serving = ca.issue({
    commonName: "kube-apiserver",
    altNames: [
      "127.0.0.1",
      "localhost",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      // Pods reach the apiserver at the first Service address, through kube-proxy, or at the node's.
      ...(node ? [node.address, ...SERVICE_CIDRS.map(firstServiceAddress)] : []),
    ],
  });
  writeFileSync(join(pki, "ca.crt"), ca.certPem);
  writeFileSync(join(pki, "apiserver.crt"), serving.certPem);
  writeFileSync(join(pki, "apiserver.key"), serving.keyPem, { mode: 0o600 });
  const server = `https://127.0.0.1:${apiPort}`;
  const audit = auditLog === undefined ? undefined : auditLogArgs(workDir, auditLog);
  const apiServer: RecordedProcess = {
    pid: 0,
    logPath: join(logs, "kube-apiserver.log"),
    command: join(binDir, "kube-apiserver"),
    args: [
      `--etcd-servers=${etcdUrl}`,
      `--bind-address=${node ? "0.0.0.0" : "127.0.0.1"}`,
      `--secure-port=${apiPort}`,
      `--advertise-address=${node?.address ?? ADVERTISE_ADDRESS}`,
      `--tls-cert-file=${join(pki, "apiserver.crt")}`,
      `--tls-private-key-file=${join(pki, "apiserver.key")}`,
      `--service-cluster-ip-range=${SERVICE_CIDRS.join(",")}`,
      `--service-account-issuer=${server}`,
      `--service-account-key-file=${join(pki, "sa.key")}`,
      `--service-account-signing-key-file=${join(pki, "sa.key")}`,
      `--token-auth-file=${join(pki, "tokens.csv")}`,
      ...(node ? nodeApiServerArgs(pki, node) : nodelessApiServerArgs),
      "--allow-privileged=true",
      "--profiling=false",
      ...(audit?.args ?? []),
    ],
  };
  const adminKubeconfigPath = join(workDir, "admin.kubeconfig");
  const info: ControlPlaneInfo = {
    server,
    caPem: ca.certPem,
    adminToken,
    adminKubeconfigPath,
    binDir,
    workDir,
    statePath,
    etcdUrl,
    ...(audit === undefined ? {} : { auditLogPath: audit.path }),
  };
  writeFileSync(adminKubeconfigPath, kubeconfigYaml(info, adminToken, "swh-admin"), { mode: 0o600 });
  const apiProc = spawnApiServer(apiServer);
  started.push(apiProc);
  watchForDeath(apiProc);
  apiServer.pid = apiProc.pid;
  await waitForApiServer(apiProc, { server, caPem: ca.certPem, adminToken });

  // --- kube-controller-manager ---
  let controllerManager: RecordedProcess | undefined;
  if (withControllerManager) {
    controllerManager = {
      pid: 0,
      logPath: join(logs, "kube-controller-manager.log"),
      command: join(binDir, "kube-controller-manager"),
      args: [
        `--kubeconfig=${adminKubeconfigPath}`,
        `--controllers=${["garbage-collector-controller", "namespace-controller", ...(node ? NODE_CONTROLLERS : []), ...extraControllers].join(",")}`,
        "--leader-elect=false",
        "--secure-port=0",
        "--use-service-account-credentials=false",
        ...(node
          ? [
              `--root-ca-file=${join(pki, "ca.crt")}`,
              `--service-account-private-key-file=${join(pki, "sa.key")}`,
            ]
          : []),
      ],
    };
    // Restarts (a second or more from now) update the state file written below.
    superviseControllerManager(controllerManager, statePath, started, lifecycle);
  }

  const state: ControlPlaneState = { info, etcd, apiServer, controllerManager };
  writeState(statePath, state);
  return info;
}

/**
 * Starts kube-controller-manager and starts it again when it exits on its own (at most
 * {@link MAX_CONTROLLER_MANAGER_RESTARTS} times). It exits by design when the apiserver is not healthy
 * within 10 s of its start, which happens when a test restarts the apiserver right then. The current
 * process is the one in `started` (teardown kills it); `recorded.pid` is the current one too, and a restart
 * records it in the state file (read, change that one field, write, as `restartApiServer()` does for its own).
 */
function superviseControllerManager(
  recorded: RecordedProcess,
  statePath: string,
  started: ManagedProcess[],
  lifecycle: { stopping: boolean },
  restarts = 0,
): void {
  const proc = spawnLogged("kube-controller-manager", recorded.command, recorded.args, recorded.logPath);
  recorded.pid = proc.pid;
  if (restarts > 0) writeState(statePath, { ...readState(statePath), controllerManager: recorded });
  const index = started.findIndex((p) => p.name === "kube-controller-manager");
  if (index >= 0) started[index] = proc;
  else started.push(proc);
  proc.child?.on("exit", (code, signal) => {
    if (lifecycle.stopping) return;
    const again = restarts < MAX_CONTROLLER_MANAGER_RESTARTS;
    console.error(
      `[@swh/testenv] kube-controller-manager (pid ${proc.pid}) exited (code ${code}, signal ${signal})` +
        `${again ? "; starting it again" : ""}; log: ${proc.logPath}\n${logTail(proc.logPath, 5)}`,
    );
    if (again) {
      setTimeout(() => {
        if (!lifecycle.stopping)
          superviseControllerManager(recorded, statePath, started, lifecycle, restarts + 1);
      }, 1_000).unref();
    }
  });
}

const MAX_CONTROLLER_MANAGER_RESTARTS = 5;

/** Without a kubelet: RBAC only, no ServiceAccount admission (pods are API objects), no `kubernetes` endpoints. */
const nodelessApiServerArgs = [
  "--authorization-mode=RBAC",
  "--disable-admission-plugins=ServiceAccount",
  "--endpoint-reconciler-type=none",
] as const;

/** With a kubelet: see {@link StartControlPlaneOptions.node}. */
function nodeApiServerArgs(pki: string, node: NodeServingOptions): string[] {
  writeFileSync(join(pki, "client-ca.crt"), node.clientCaPem);
  writeFileSync(join(pki, "kubelet-client.crt"), node.kubeletClient.certPem);
  writeFileSync(join(pki, "kubelet-client.key"), node.kubeletClient.keyPem, { mode: 0o600 });
  return [
    "--authorization-mode=Node,RBAC",
    `--client-ca-file=${join(pki, "client-ca.crt")}`,
    "--enable-admission-plugins=NodeRestriction",
    "--endpoint-reconciler-type=lease",
    // The node's name does not resolve (no DNS): logs and exec go to its InternalIP.
    "--kubelet-preferred-address-types=InternalIP,Hostname",
    `--kubelet-client-certificate=${join(pki, "kubelet-client.crt")}`,
    `--kubelet-client-key=${join(pki, "kubelet-client.key")}`,
  ];
}

/** The first address of a Service CIDR: the `kubernetes` Service's ClusterIP in that family. */
function firstServiceAddress(cidr: string): string {
  const base = cidr.split("/")[0] ?? "";
  return base.includes(":") ? `${base}1` : base.replace(/\.0$/, ".1");
}

/** Pids to kill, in start order; the apiserver's comes from the state file (a restart changes it). */
function currentPids(statePath: string, started: readonly ManagedProcess[]): number[] {
  const pids = started.map((p) => p.pid);
  if (existsSync(statePath)) {
    try {
      const state = readState(statePath);
      const recorded = state.apiServer.pid;
      if (!pids.includes(recorded)) pids.splice(1, 0, recorded);
    } catch {
      // A broken state file must not prevent killing what we know about.
    }
  }
  return pids.filter((pid) => pid > 0);
}

/**
 * Reports (to stderr, with the log tail) a process that dies while the control plane is in use: a
 * silent death would show up as confusing test failures.
 */
function watchForDeath(proc: ManagedProcess): void {
  proc.child?.on("exit", (code, signal) => {
    // Stopping (ours, or restartApiServer() in a worker) sends SIGTERM/SIGKILL; Go binaries then exit 0.
    if (code === 0 || signal === "SIGTERM" || signal === "SIGKILL") return;
    console.error(
      `[@swh/testenv] ${proc.name} (pid ${proc.pid}) exited with code ${code}; log: ${proc.logPath}\n${logTail(proc.logPath)}`,
    );
  });
}

/**
 * The binaries directory: `$SWH_BIN_DIR`, else whatever `scripts/build-binaries.sh` prints on its
 * last line (it is a no-op when the version-keyed cache is already filled).
 */
function resolveBinDir(): string {
  const fromEnv = process.env.SWH_BIN_DIR;
  if (fromEnv) return fromEnv;
  const script = fileURLToPath(new URL("../scripts/build-binaries.sh", import.meta.url));
  const out = execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const last = out.trim().split("\n").at(-1);
  if (!last) throw new Error(`${script} printed no bin directory`);
  return last;
}
