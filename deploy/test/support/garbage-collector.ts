/**
 * kube-controller-manager's garbage collector and ServiceWithHealthchecks owners: deleting an SWH (or its CRD)
 * removes what it owns (its Service, its slices) only once the collector watches the SWH resource.
 */
import { waitFor } from "@swh/testenv";
import type { DocShell } from "./doc-commands.ts";

/**
 * Waits until the garbage collector acts on ServiceWithHealthchecks owners: it starts watching a resource only at
 * its next discovery (every 30 s), and a test creates the CRD moments before, which a real cluster did long before
 * anyone deletes it. Proven by an owned ConfigMap going away with its SWH (`gc-probe` in `namespace`).
 */
export async function garbageCollectorFollowsSwhOwners(shell: DocShell, namespace: string): Promise<void> {
  check(
    shell.apply([
      {
        apiVersion: "network.deckhouse.io/v1alpha1",
        kind: "ServiceWithHealthchecks",
        metadata: { name: "gc-probe", namespace },
        spec: {
          selector: { app: "gc-probe" },
          ports: [{ name: "tcp", port: 80, targetPort: 8080 }],
          healthcheck: { probes: [{ mode: "TCP", tcp: { targetPort: 8080 } }] },
        },
      },
    ]),
  );
  const uid = check(shell.sh(`kubectl -n ${namespace} get swh gc-probe -o jsonpath='{.metadata.uid}'`));
  check(
    shell.apply([
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "gc-probe", namespace, ownerReferences: [swhOwner("gc-probe", uid)] },
      },
    ]),
  );
  check(shell.sh(`kubectl -n ${namespace} delete swh gc-probe --wait`));
  await waitFor(
    "the garbage collector to delete a ConfigMap owned by a deleted SWH",
    () => shell.sh(`kubectl -n ${namespace} get configmap gc-probe --ignore-not-found -o name`).stdout === "",
    { timeoutMs: 120_000 },
  );
}

/** A controller ownerReference to the SWH `name` with `uid`, as the controller and the agents set it. */
export function swhOwner(name: string, uid: string) {
  return {
    apiVersion: "network.deckhouse.io/v1alpha1",
    kind: "ServiceWithHealthchecks",
    name,
    uid,
    controller: true,
  };
}

function check(result: { status: number | null; stdout: string; stderr: string }): string {
  if (result.status !== 0) throw new Error(`exited ${result.status}: ${result.stderr}`);
  return result.stdout.trim();
}
