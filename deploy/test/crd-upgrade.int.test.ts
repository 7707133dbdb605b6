/**
 * CRD lifecycle (issue 21 item 2, ADR 0030) on the real API server, with the commands of docs/install.md: the
 * previous chart's CRD (crds/, fixtures/crd-previous.yaml) holds SWHs, then the current chart (Helm) or the
 * plain manifests upgrade it; the stored SWHs read back unchanged and keep accepting writes, the new rules hold
 * for new objects, uninstall keeps the CRD and the balancers, deleting the CRD removes them.
 */
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { validate } from "@swh/crd-types";
import { testCluster, waitFor } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type DocShell, docShell } from "./support/doc-commands.ts";
import { garbageCollectorFollowsSwhOwners, swhOwner } from "./support/garbage-collector.ts";
import { CHART_DIR, DEPLOY_DIR } from "./support/tools.ts";

const CRD = "servicewithhealthchecks.network.deckhouse.io";
const PREVIOUS_CRD = join(DEPLOY_DIR, "test/fixtures/crd-previous.yaml");
const REGISTRY = "registry.example.test/platform";
/** Rejected by the current schema (timeoutSeconds at most periodSeconds), accepted by the previous one. */
const LEGACY_TIMING = { periodSeconds: 10, timeoutSeconds: 20 };

let shell: DocShell;

beforeAll(async () => {
  shell = docShell("docs/install.md", await testCluster());
});

function swh(name: string, namespace: string, timing: { periodSeconds: number; timeoutSeconds: number }) {
  return {
    apiVersion: "network.deckhouse.io/v1alpha1",
    kind: "ServiceWithHealthchecks",
    metadata: { name, namespace },
    spec: {
      selector: { app: name },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        periodSeconds: timing.periodSeconds,
        probes: [{ mode: "TCP", timeoutSeconds: timing.timeoutSeconds, tcp: { targetPort: 8080 } }],
      },
    },
  };
}

function json(command: string) {
  const result = shell.sh(command);
  if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function deleteCrd() {
  shell.sh(`kubectl delete crd ${CRD} --ignore-not-found --wait`);
}

/** Stores two SWHs under the previous schema: one valid under both, one only under the previous one. */
function storeSwhs(namespace: string) {
  shell.sh(`kubectl create namespace ${namespace}`);
  const stored = shell.apply([
    swh("steady", namespace, { periodSeconds: 10, timeoutSeconds: 1 }),
    swh("legacy", namespace, LEGACY_TIMING),
  ]);
  // The fixture really is the previous schema: it accepts what the current one rejects.
  expect(stored.stderr).toBe("");
  expect(stored.status).toBe(0);
}

/** The CRD is the current one, the stored SWHs read back unchanged and accept writes, new ones meet the new rules. */
function expectUpgraded(namespace: string) {
  const generated = parse(readFileSync(join(CHART_DIR, "files/crd.yaml"), "utf8"));
  const served = json(`kubectl get crd ${CRD} -o json`);
  expect(served.spec.versions[0].schema).toEqual(generated.spec.versions[0].schema);

  const items = json(`kubectl -n ${namespace} get swh -o json`).items;
  expect(items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(["legacy", "steady"]);
  const [legacy, steady] = items;
  expect(legacy.spec.healthcheck.probes[0].timeoutSeconds).toBe(LEGACY_TIMING.timeoutSeconds);
  expect(validate(steady)).toEqual([]);
  // Validation ratcheting: an object stored before the rule existed still takes writes that leave that part alone;
  // the API server warns about the rule it breaks.
  for (const write of [
    `kubectl -n ${namespace} label swh legacy upgraded=yes`,
    `kubectl -n ${namespace} patch swh legacy --type=json -p '[{"op":"replace","path":"/spec/ports/0/port","value":81}]'`,
  ]) {
    const result = shell.sh(write);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "Warning: spec.healthcheck.probes: Invalid value: probes[].timeoutSeconds must be at most periodSeconds",
    );
  }
  const written = json(`kubectl -n ${namespace} get swh legacy -o json`);
  expect(written.metadata.labels).toEqual({ upgraded: "yes" });
  expect(written.spec.ports[0].port).toBe(81);
  const rejected = shell.apply([swh("new-legacy", namespace, LEGACY_TIMING)]);
  expect(rejected.status).not.toBe(0);
  expect(rejected.stderr).toContain("timeoutSeconds must be at most periodSeconds");
}

describe("upgrading the CRD from the previous chart's schema, with SWHs stored", () => {
  it("with the plain manifests: kubectl apply -k upgrades it in place", async () => {
    await deleteCrd();
    shell.sh(`kubectl apply --server-side -f ${PREVIOUS_CRD}`);
    shell.sh(`kubectl wait --for=condition=Established crd/${CRD}`);
    storeSwhs("upgrade-manifests");

    const env = { REGISTRY, RELEASE: "swh", NAMESPACE: "swh-system" };
    shell.run("overlay", env);
    shell.run("manifests-apply", env);
    expectUpgraded("upgrade-manifests");
  });

  it("with Helm: from crds/ to the template (after adopting the CRD), kept on uninstall, gone with the balancers and the CRD", async () => {
    await deleteCrd();
    // The previous chart: today's templates without the CRD template, the previous CRD in crds/.
    const previous = join(shell.dir, "previous-chart");
    cpSync(CHART_DIR, previous, { recursive: true });
    rmSync(join(previous, "templates/crd.yaml"));
    mkdirSync(join(previous, "crds"));
    cpSync(PREVIOUS_CRD, join(previous, "crds/servicewithhealthchecks.yaml"));
    const env = { REGISTRY, RELEASE: "upgrade", NAMESPACE: "upgrade-system" };
    shell.run("values-file", env);
    // Isolation from the other tests' objects in this shared control plane: a name prefix of our own.
    shell.sh("echo 'namePrefix: upgrade' >> my-values.yaml");
    const installed = shell.sh(
      'helm install "$RELEASE" previous-chart --namespace "$NAMESPACE" --create-namespace --values my-values.yaml',
      env,
    );
    expect(installed.stderr).toBe("");
    storeSwhs("upgrade-helm");
    const legacyUid = json("kubectl -n upgrade-helm get swh legacy -o json").metadata.uid;
    shell.apply([
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: {
          name: "legacy",
          namespace: "upgrade-helm",
          ownerReferences: [swhOwner("legacy", legacyUid)],
        },
        spec: { ports: [{ name: "http", port: 80 }] },
      },
    ]);

    // Helm refuses a CRD it did not create (crds/ objects carry no release metadata) until it is adopted.
    const refused = shell.tryRun("helm-install", env);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("cannot be imported into the current release");
    shell.run("adopt-crd", env);
    shell.run("helm-install", env);
    expectUpgraded("upgrade-helm");

    shell.run("uninstall", env);
    expect(json(`kubectl get crd ${CRD} -o json`).metadata.annotations).toMatchObject({
      "helm.sh/resource-policy": "keep",
    });
    expect(json("kubectl -n upgrade-helm get swh -o json").items).toHaveLength(2);
    expect(json("kubectl -n upgrade-helm get service legacy -o json").metadata.uid).toBeTruthy();
    expect(shell.sh("kubectl -n upgrade-system get deployments -o name").stdout).toBe("");

    await garbageCollectorFollowsSwhOwners(shell, "upgrade-helm");
    // The balancers first, then the CRD (docs/install.md): deleting the CRD alone left the Service behind in 2 of
    // 4 full runs, when the collector's watch on SWHs ended with the CRD before it had seen their deletion.
    shell.run("delete-swhs", env);
    await waitFor("the garbage collector to delete the Service of the deleted SWH", () => {
      const left = shell.sh("kubectl -n upgrade-helm get service legacy --ignore-not-found -o name");
      return left.status === 0 && left.stdout === "";
    });
    shell.run("delete-crd", env);
    expect(shell.sh(`kubectl get crd ${CRD} --ignore-not-found -o name`).stdout).toBe("");
    // Leave the cluster as the other test files expect it: the current CRD installed.
    shell.sh(`kubectl apply --server-side --force-conflicts -f ${join(DEPLOY_DIR, "manifests/crd.yaml")}`);
  }, 300_000); // room for the garbage collector's discovery (see garbageCollectorFollowsSwhOwners)
});
