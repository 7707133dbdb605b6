/**
 * docs/install.md, run as written against the real API server (issue 21 item 1): the images a release pushes
 * are the ones the chart (Helm) and the plain manifests (kustomize overlay) run, a first SWH is accepted, and the
 * uninstall commands remove what the document says. No image is built here (deploy/test/images.int.test.ts runs
 * the release and pushes it to a registry); nodes pulling the images is Kubernetes' part.
 */
import { join } from "node:path";
import { testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocShell, docShell } from "./support/doc-commands.ts";
import { garbageCollectorFollowsSwhOwners, swhOwner } from "./support/garbage-collector.ts";
import { DEPLOY_DIR } from "./support/tools.ts";

const REGISTRY = "registry.example.test/platform";
const CRD = "servicewithhealthchecks.network.deckhouse.io";

let shell: DocShell;
let pushed: string[];

beforeAll(async () => {
  shell = docShell("docs/install.md", await testCluster());
  // A fresh cluster has no CRD; earlier test files of this run may have applied one that Helm did not create.
  shell.sh(`kubectl delete crd ${CRD} --ignore-not-found --wait`);
  pushed = shell.run("image-names", { REGISTRY }).stdout.trim().split("\n");
});

afterAll(() => {
  // Leave the cluster as the other test files expect it: the current CRD installed.
  shell?.sh(`kubectl apply --server-side --force-conflicts -f ${join(DEPLOY_DIR, "manifests/crd.yaml")}`);
});

function lines(text: string): string[] {
  return text.trim().split("\n").sort();
}

describe("docs/install.md on a real API server", () => {
  it("names the two images release.sh pushes to the registry prefix", () => {
    expect(pushed).toEqual([
      expect.stringMatching(/^registry\.example\.test\/platform\/swh-controller:\d+\.\d+\.\d+/),
      expect.stringMatching(/^registry\.example\.test\/platform\/swh-agent:\d+\.\d+\.\d+/),
    ]);
  });

  it("installs with Helm: the controller and the agents run the pushed images, and a first SWH is accepted and listed", () => {
    const env = { REGISTRY, RELEASE: "docs", NAMESPACE: "docs-system" };
    shell.run("values-file", env);
    // Isolation from the other tests' objects in this shared control plane: a name prefix of our own.
    shell.sh("echo 'namePrefix: docs' >> my-values.yaml");
    shell.run("namespace", env);
    shell.run("helm-install", env);
    // The namespace step labels it; helm's --create-namespace alone would not.
    expect(
      shell.sh(
        `kubectl get namespace "$NAMESPACE" -o jsonpath='{.metadata.labels.pod-security\\.kubernetes\\.io/enforce}'`,
        env,
      ).stdout,
    ).toBe("restricted");
    expect(lines(shell.run("check-images", env).stdout)).toEqual([...pushed].sort());
    // The upgrade command, on the same chart: a second revision of the release, the same images.
    shell.run("helm-upgrade", env);
    expect(shell.sh('helm status "$RELEASE" -n "$NAMESPACE" -o json', env).stdout).toMatch(/"version":2[,}]/);
    expect(lines(shell.run("check-images", env).stdout)).toEqual([...pushed].sort());

    shell.run("first-swh", env);
    const check = shell.run("check-swh", env);
    expect(check.stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORTS\s+READY\s+AGE$/m);
    expect(check.stdout).toMatch(/^web\s+ClusterIP\s/m);
    // No controller or agent runs here (no kubelet pulls the images): no Service, no slices yet.
    expect(check.stderr).toContain("No resources found in default namespace.");

    shell.run("uninstall", env);
    expect(shell.sh(`kubectl get crd ${CRD} -o name`).stdout.trim()).toBe(
      `customresourcedefinition.apiextensions.k8s.io/${CRD}`,
    );
    expect(shell.sh("kubectl -n default get swh web -o name").stdout.trim()).toContain("/web");
    shell.sh("kubectl -n default delete swh web --wait");
  });

  it("installs with the plain manifests through a kustomize overlay: the same pushed images", () => {
    shell.run("overlay", MANIFESTS_ENV);
    shell.run("manifests-apply", MANIFESTS_ENV);
    expect(lines(shell.run("check-images", MANIFESTS_ENV).stdout)).toEqual([...pushed].sort());
    // And the apply is repeatable (the upgrade path of the manifests).
    shell.run("manifests-apply", MANIFESTS_ENV);
  });

  it("uninstalls the plain manifests keeping the CRD and the balancers, or entirely: balancers first, then the rest with the CRD", async () => {
    const all = installed();
    expect(all).toEqual(
      expect.arrayContaining([`customresourcedefinition.apiextensions.k8s.io/${CRD}`, ...WORKLOADS]),
    );
    shell.run("first-swh", MANIFESTS_ENV);
    writeBalancer();

    removePodsWithoutKubelet();
    shell.run("manifests-delete-keep-crd", MANIFESTS_ENV);
    expect(installed()).toEqual([`customresourcedefinition.apiextensions.k8s.io/${CRD}`]);
    expect(lines(shell.sh(`kubectl -n default get ${BALANCER.join(" ")} -o name`).stdout)).toEqual(
      [...BALANCER].sort(),
    );

    shell.run("manifests-apply", MANIFESTS_ENV);
    expect(installed()).toEqual(all);
    // Deleting the balancers must remove their Service and slice: make sure the collector watches SWHs by now
    // (checked this late, the collector's periodic discovery has more often happened already).
    await garbageCollectorFollowsSwhOwners(shell, "default");
    removePodsWithoutKubelet();
    shell.run("delete-swhs", MANIFESTS_ENV);
    shell.run("manifests-delete", MANIFESTS_ENV);
    expect(installed()).toEqual([]);
    const swh = shell.sh(
      "kubectl get --raw /apis/network.deckhouse.io/v1alpha1/namespaces/default/servicewithhealthchecks/web",
    );
    expect(swh.stderr).toContain("NotFound");
    await waitFor("the garbage collector to delete the Service and slice of the deleted SWH", () => {
      const left = shell.sh(
        "kubectl -n default get service/web endpointslice/web-http --ignore-not-found -o name",
      );
      return left.status === 0 && left.stdout === "";
    });
  });
});

const MANIFESTS_ENV = { REGISTRY, RELEASE: "swh", NAMESPACE: "swh-system" };

/**
 * The test cluster has no kubelets. Pods other test files left in the install namespace (`startNodeAgent`'s agent
 * pods, made for their bound tokens) would stay Terminating after the uninstall's graceful delete and hold the
 * namespace's deletion — and `kubectl delete` waiting for it — forever. On a real cluster the kubelets stop them.
 */
function removePodsWithoutKubelet(): void {
  const removed = shell.sh(
    `kubectl -n ${MANIFESTS_ENV.NAMESPACE} delete pods --all --grace-period=0 --force --ignore-not-found`,
  );
  expect(removed.status, removed.stderr).toBe(0);
}
const WORKLOADS = ["deployment.apps/swh-controller", "daemonset.apps/swh-agent"];
/** The first SWH's balancer: the SWH, the Service the controller creates, a slice as an agent writes it. */
const BALANCER = [
  "servicewithhealthchecks.network.deckhouse.io/web",
  "service/web",
  "endpointslice.discovery.k8s.io/web-http",
];

/** The objects of the overlay that exist now (`kubectl get -k`), sorted. */
function installed(): string[] {
  const got = shell.sh("kubectl get -k swh-overlay --ignore-not-found -o name");
  if (got.status !== 0) throw new Error(`kubectl get -k swh-overlay: ${got.stderr}`);
  return got.stdout.trim() === "" ? [] : lines(got.stdout);
}

/** The Service and a slice of SWH web as the controller and an agent write them (neither runs here). */
function writeBalancer(): void {
  const uid = shell.sh("kubectl -n default get swh web -o jsonpath='{.metadata.uid}'").stdout;
  const ownerReferences = [swhOwner("web", uid)];
  const written = shell.apply([
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default", ownerReferences },
      spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: "web-http",
        namespace: "default",
        ownerReferences,
        labels: {
          "kubernetes.io/service-name": "web",
          "endpointslice.kubernetes.io/managed-by": "service-with-healthchecks.network.deckhouse.io",
        },
      },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.1.10"], conditions: { ready: true } }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    },
  ]);
  if (written.status !== 0) throw new Error(`writing the balancer of web: ${written.stderr}`);
}
