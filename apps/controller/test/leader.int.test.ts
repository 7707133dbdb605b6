/**
 * Two controller processes from the built bundle (dist/main.mjs), each acting as the controller ServiceAccount
 * through its own counting proxy, so the test sees which process writes. Only the Lease holder writes; when it
 * is killed (SIGKILL: no release), the other takes over once the Lease expires; SIGTERM exits cleanly and
 * releases the Lease.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoordinationV1Api } from "@kubernetes/client-node";
import { CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import type { CountingProxy } from "@swh/testenv";
import { httpsGet, kubeconfigYaml, type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controllerIdentity, INSTALL_NAMESPACE, installController } from "./support/harness.js";
import { clients } from "./support/objects.js";

const BUNDLE = new URL("../dist/main.mjs", import.meta.url).pathname;
const { version: VERSION } = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
) as { version: string };

interface Replica {
  name: string;
  proxy: CountingProxy;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

let cluster: TestCluster;
let admin: ReturnType<typeof clients>;
const replicas: Replica[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  admin = clients(cluster.kubeConfig);
  await installController(cluster);
});

afterAll(async () => {
  for (const r of replicas) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    await r.exited;
    await r.proxy.close();
  }
});

async function startReplica(name: string): Promise<Replica> {
  const { proxy, token } = await controllerIdentity(cluster);
  const dir = mkdtempSync(join(tmpdir(), `swh-${name}-`));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml(proxy, token, "swh-controller"), { mode: 0o600 });
  const child = spawn(
    process.execPath,
    [
      BUNDLE,
      `--kubeconfig=${kubeconfig}`,
      `--namespace=${INSTALL_NAMESPACE}`,
      "--metrics-bind-address=127.0.0.1:0",
      "--health-bind-address=127.0.0.1:0",
    ],
    { env: { ...process.env, POD_NAME: name }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const output: string[] = [];
  child.stdout?.on("data", (d) => output.push(String(d)));
  child.stderr?.on("data", (d) => output.push(String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const replica = { name, proxy, child, output, exited };
  replicas.push(replica);
  return replica;
}

/** Port of a replica's ops server ("metrics" or "health"), read from its JSON log. */
function opsPort(r: Replica, server: "metrics" | "health"): number | undefined {
  for (const line of r.output.join("").split("\n")) {
    if (!line.includes('"ops server listening"') || !line.includes(`"server":"${server}"`)) continue;
    return (JSON.parse(line) as { port: number }).port;
  }
  return undefined;
}
/** Scrapes a replica's HTTPS /metrics as the admin (allowed get on /metrics); the replica reviews the token. */
const scrape = async (r: Replica) => {
  const answer = await httpsGet(opsPort(r, "metrics") ?? 0, "/metrics", {
    token: cluster.kubeConfig.getCurrentUser()?.token,
  });
  if (answer.status !== 200) throw new Error(`${r.name} /metrics: HTTP ${answer.status}: ${answer.body}`);
  return answer.body;
};

const holder = async () => {
  const lease = await cluster.kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ namespace: INSTALL_NAMESPACE, name: CONTROLLER_LEADER_LEASE })
    .catch(() => undefined);
  return lease?.spec?.holderIdentity ?? "";
};
/** Writes other than leader election itself and the access reviews of a scrape (which store nothing). */
const workWrites = (r: Replica, since = 0) =>
  r.proxy
    .writes(since)
    .filter(
      (w) =>
        !w.path.includes("/leases/") &&
        !w.path.endsWith("/leases") &&
        !w.path.startsWith("/apis/authentication.k8s.io/") &&
        !w.path.startsWith("/apis/authorization.k8s.io/"),
    );

describe("leader election", () => {
  it("lets only the leader write, hands over when it dies, and releases the Lease on SIGTERM", async () => {
    const a = await startReplica("controller-a");
    await waitFor("controller-a leads", async () => (await holder()) === "controller-a");
    const b = await startReplica("controller-b");
    await waitFor("controller-b synced and campaigning", () =>
      b.proxy.requests.some((r) => r.path.includes(`/leases/${CONTROLLER_LEADER_LEASE}`)),
    );

    const bMetrics = await waitFor("controller-b serves /readyz", async () => {
      const port = opsPort(b, "health");
      return port !== undefined && (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200
        ? scrape(b)
        : undefined;
    });
    expect(bMetrics).toMatch(/^swh_leader 0$/m);
    const aMetrics = await scrape(a);
    expect(aMetrics).toMatch(/^swh_leader 1$/m);
    expect(aMetrics).toContain(`swh_build_info{component="controller",version="${VERSION}"} 1`);

    const ns = await cluster.createNamespace("leader");
    await admin.createSwh(ns, "first", { ports: [{ port: 80 }] });
    await waitFor("Service first", () => admin.getService(ns, "first"));
    await waitFor(
      "status of first",
      async () => (await admin.getSwh(ns, "first")).status?.conditions?.length,
    );
    expect(
      workWrites(a).some(
        (w) => w.method === "POST" && w.path.split("?")[0] === `/api/v1/namespaces/${ns}/services`,
      ),
    ).toBe(true);
    expect(workWrites(b)).toEqual([]);

    const killedAt = Date.now();
    a.child.kill("SIGKILL");
    await a.exited;
    // Lease duration 15 s + retry period 2 s (+ jitter) after the last renewal.
    await waitFor("controller-b leads", async () => (await holder()) === "controller-b", {
      timeoutMs: 40_000,
      intervalMs: 250,
    });
    // A figure for the report, not an assertion (tests do not assert timing).
    console.info(
      `measured: controller-b took the Lease ${Date.now() - killedAt} ms after controller-a was killed`,
    );
    await admin.createSwh(ns, "second", { ports: [{ port: 81 }] });
    await waitFor("Service second", () => admin.getService(ns, "second"));
    expect(
      workWrites(b).some(
        (w) => w.method === "POST" && w.path.split("?")[0] === `/api/v1/namespaces/${ns}/services`,
      ),
    ).toBe(true);

    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
    expect(await holder()).toBe("");
    expect(b.output.join("")).toContain('"msg":"stopped"');
  });
});
