/**
 * docs/migrating.md, run as written against the real API server (issue 21 item 5): the leftovers of the original
 * module (a selector-less Service controlled by another object, slices under another managed-by value) are found,
 * released and removed by the documented commands, and nothing else is touched. The controller's adoption of the
 * released Service is covered by packages/e2e/test/ownership.int.test.ts.
 */
import { join } from "node:path";
import { MANAGED_BY } from "@swh/crd-types";
import { testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { type DocShell, docShell } from "./support/doc-commands.ts";
import { DEPLOY_DIR } from "./support/tools.ts";

/** Stands for the original module's managed-by value, which its documentation does not give. */
const OLD_MANAGED_BY = "original-module.example";
const NS = "migrate";
const SWH = "db";

let shell: DocShell;

function slice(name: string, service: string, managedBy: string) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name,
      namespace: NS,
      labels: { "kubernetes.io/service-name": service, "endpointslice.kubernetes.io/managed-by": managedBy },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.1.10"], conditions: { ready: true } }],
    ports: [{ name: "pg", port: 5432, protocol: "TCP" }],
  };
}

function sh(command: string): string {
  const result = shell.sh(command);
  if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`);
  return result.stdout;
}

function applyJson(objects: object[]) {
  const file = join(shell.dir, `objects-${Date.now()}.json`);
  sh(`cat > ${file} <<'JSON'\n${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects })}\nJSON`);
  sh(`kubectl apply --server-side -f ${file}`);
}

beforeAll(async () => {
  shell = docShell("docs/migrating.md", await testCluster());
  sh(`kubectl apply --server-side --force-conflicts -f ${join(DEPLOY_DIR, "manifests/crd.yaml")}`);
  sh("kubectl wait --for=condition=Established crd/servicewithhealthchecks.network.deckhouse.io");
  sh(`kubectl create namespace ${NS}`);
  // What the original module leaves behind: the SWH, its Service controlled by another object, its slices.
  sh(`kubectl -n ${NS} create configmap original-owner`);
  const ownerUid = sh(`kubectl -n ${NS} get configmap original-owner -o jsonpath='{.metadata.uid}'`);
  applyJson([
    {
      apiVersion: "network.deckhouse.io/v1alpha1",
      kind: "ServiceWithHealthchecks",
      metadata: { name: SWH, namespace: NS },
      spec: {
        selector: { app: SWH },
        ports: [{ name: "pg", port: 5432 }],
        healthcheck: { probes: [{ mode: "TCP", tcp: { targetPort: 5432 } }] },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: SWH,
        namespace: NS,
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "original-owner", uid: ownerUid, controller: true },
        ],
      },
      spec: { ports: [{ name: "pg", port: 5432 }] },
    },
    slice("db-original-a", SWH, OLD_MANAGED_BY),
    slice("other-original-a", "other", OLD_MANAGED_BY),
    slice("db-ours", SWH, MANAGED_BY),
    slice("db-by-kubernetes", SWH, "endpointslice-controller.k8s.io"),
  ]);
});

describe("docs/migrating.md on a real API server", () => {
  it("lists the slices neither Kubernetes nor this implementation wrote, with their managed-by value", () => {
    const listed = shell.run("foreign-slices").stdout;
    expect(listed).toMatch(new RegExp(`^${NS}\\s+db-original-a\\s+db\\s+${OLD_MANAGED_BY}\\s*$`, "m"));
    expect(listed).toMatch(new RegExp(`^${NS}\\s+other-original-a\\s+other\\s+${OLD_MANAGED_BY}\\s*$`, "m"));
    expect(listed).not.toContain("db-ours");
    expect(listed).not.toContain("db-by-kubernetes");
  });

  it("reads the ServiceReady reason and releases a Service another object controls, keeping its cluster IP", () => {
    // A condition of the shape the controller writes for this case (packages/e2e/test/ownership.int.test.ts).
    const condition = {
      type: "ServiceReady",
      status: "False",
      reason: "ServiceOwnedByOther",
      message: "Service is controlled by ConfigMap original-owner; no endpoints are published",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    };
    sh(
      `kubectl -n ${NS} patch swh ${SWH} --subresource=status --type=merge -p '${JSON.stringify({ status: { conditions: [condition] } })}'`,
    );
    const env = { NS, SWH };
    expect(shell.run("service-reason", env).stdout).toBe("ServiceOwnedByOther\n");

    const clusterIP = sh(`kubectl -n ${NS} get service ${SWH} -o jsonpath='{.spec.clusterIP}'`);
    shell.run("release-service", env);
    const service = JSON.parse(sh(`kubectl -n ${NS} get service ${SWH} -o json`));
    expect(service.metadata.ownerReferences).toBeUndefined();
    expect(service.spec.selector).toBeUndefined();
    expect(service.spec.clusterIP).toBe(clusterIP);
  });

  it("deletes only the original module's slices of that one balancer", () => {
    const env = { NS, SWH, OLD_MANAGED_BY };
    const before = shell.run("slices-of-swh", env).stdout;
    for (const name of ["db-original-a", "db-ours", "db-by-kubernetes"]) expect(before).toContain(name);
    shell.run("delete-old-slices", env);
    const left = sh(`kubectl -n ${NS} get endpointslices -o jsonpath='{.items[*].metadata.name}'`)
      .split(" ")
      .sort();
    expect(left).toEqual(["db-by-kubernetes", "db-ours", "other-original-a"]);
  });
});
