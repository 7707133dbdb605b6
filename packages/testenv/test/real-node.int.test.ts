/**
 * The real node of the test kit: a pod from the busybox image runs under the kubelet with a pod IP and a
 * projected ServiceAccount token, a ClusterIP reaches it through kube-proxy, and stop() leaves no mount, sandbox
 * network namespace, link or CNI chain behind.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpGet } from "../src/internal/http-get.js";
import { type RealNodeCluster, startRealNodeCluster } from "../src/real-node.js";
import { waitFor } from "../src/wait-for.js";

let node: RealNodeCluster | undefined;
let netnsBefore: string[] = [];

function sandboxNetns(): string[] {
  return existsSync("/run/netns") ? readdirSync("/run/netns").filter((n) => n.startsWith("cni-")) : [];
}

beforeAll(async () => {
  netnsBefore = sandboxNetns();
  node = await startRealNodeCluster();
  console.log(`real node ${node.node.name} Ready in ${node.startMs} ms`);
});

afterAll(async () => {
  await node?.stop();
});

describe("startRealNodeCluster", () => {
  it("runs a pod with a pod IP and a projected token; a ClusterIP reaches it through kube-proxy", async () => {
    if (!node) throw new Error("no node");
    const { cluster } = node;
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = await cluster.createNamespace("rn");
    const script =
      "mkdir -p /tmp/www && cat /var/run/secrets/kubernetes.io/serviceaccount/namespace > /tmp/www/index.html" +
      " && exec httpd -f -p 8080 -h /tmp/www";
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "httpd",
              image: node.busyboxImage,
              imagePullPolicy: "Never",
              command: ["sh", "-c", script],
              ports: [{ name: "http", containerPort: 8080 }],
              readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 1 },
              securityContext: {
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
              },
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    });
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
      },
    });
    const pod: V1Pod = await waitFor(
      "pod web Ready",
      async () => {
        const p = await core.readNamespacedPod({ name: "web", namespace });
        const ready = p.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
        return ready ? p : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const podIp = pod.status?.podIP ?? "";
    expect(podIp.startsWith("10.88.0.")).toBe(true);
    // The token's namespace file came from the projected volume the ServiceAccount admission added.
    expect((await httpGet(`http://${podIp}:8080/`, { timeoutMs: 3_000 })).body).toBe(namespace);

    const service = await core.readNamespacedService({ name: "web", namespace });
    await waitFor("kube-proxy routes web:http", () =>
      node?.proxy.routedEndpoints({ namespace, name: "web", port: "http" }).includes(`${podIp}:8080`),
    );
    const viaService = await httpGet(`http://${service.spec?.clusterIP}:80/`, { timeoutMs: 3_000 });
    expect(viaService.body).toBe(namespace);
  });

  it("stop() leaves no mount, sandbox network namespace, link, CNI chain or pod cgroup behind", async () => {
    if (!node) throw new Error("no node");
    const { dir } = node;
    await node.stop();
    node = undefined;
    const mounts = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .filter((line) => line.includes(dir));
    expect(mounts).toEqual([]);
    expect(sandboxNetns()).toEqual(netnsBefore);
    const links = execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" });
    expect(links).not.toMatch(/swhcni0|swhnode0|veth/);
    expect(execFileSync("iptables-save", ["-t", "nat"], { encoding: "utf8" })).not.toContain("CNI-");
    expect(existsSync("/sys/fs/cgroup/memory/kubepods") || existsSync("/sys/fs/cgroup/kubepods")).toBe(false);
    expect(existsSync(dir)).toBe(process.env.SWH_KEEP_WORKDIR === "1");
  });
});
