/**
 * docs/install.md, run as written against the real API server (issue 21 item 1): the images a release pushes
 * are the ones the chart (Helm) and the plain manifests (kustomize overlay) run, and a first SWH is accepted.
 * No image is built here (deploy/test/images.int.test.ts builds them); nodes pulling them is Kubernetes' part.
 */
import { testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { type DocShell, docShell } from "./support/doc-commands.ts";

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
    shell.run("helm-install", env);
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
    const env = { REGISTRY, RELEASE: "swh", NAMESPACE: "swh-system" };
    shell.run("overlay", env);
    shell.run("manifests-apply", env);
    expect(lines(shell.run("check-images", env).stdout)).toEqual([...pushed].sort());
    // And the apply is repeatable (the upgrade path of the manifests).
    shell.run("manifests-apply", env);
  });
});
