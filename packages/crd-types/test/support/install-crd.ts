/**
 * Installs the CRD from `deploy/chart/files/crd.yaml` — the file the chart installs, not the in-memory object — and waits until
 * the API server reports it Established and serves the resource. Sent as raw JSON: `TestCluster.apply` goes
 * through @kubernetes/client-node's typed serializer, which drops `enum`, `default` and `x-kubernetes-*` from
 * a CRD's schema (seen on kube-apiserver v1.35.4 with client-node 2.0.1).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type TestCluster, waitFor } from "@swh/testenv";
import { parse } from "yaml";
import { callApi } from "./api.js";

const CRD_FILE = fileURLToPath(new URL("../../../../deploy/chart/files/crd.yaml", import.meta.url));
const CRD_COLLECTION = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const CRD_PATH = `${CRD_COLLECTION}/servicewithhealthchecks.network.deckhouse.io`;

interface Crd {
  status?: { conditions?: { type: string; status: string }[] };
  spec: { versions: { additionalPrinterColumns?: { name: string; jsonPath: string }[] }[] };
}

/** The shipped CRD file, parsed. */
export function shippedCrd(): { metadata: Record<string, unknown> } & Record<string, unknown> {
  return parse(readFileSync(CRD_FILE, "utf8"));
}

/**
 * Applies the shipped CRD file (or `manifest`, a variant of it) and returns the CRD read back once it is
 * Established.
 */
export async function installCrd(cluster: TestCluster, manifest = shippedCrd()): Promise<Crd> {
  const created = await callApi(cluster.info, "POST", CRD_COLLECTION, manifest);
  if (created.status === 409) {
    const current = await callApi(cluster.info, "GET", CRD_PATH);
    const resourceVersion = (current.body.metadata as { resourceVersion: string }).resourceVersion;
    const replaced = await callApi(cluster.info, "PUT", CRD_PATH, {
      ...manifest,
      metadata: { ...manifest.metadata, resourceVersion },
    });
    if (replaced.status !== 200) throw new Error(`replacing the CRD: ${JSON.stringify(replaced.body)}`);
  } else if (created.status !== 201) {
    throw new Error(`creating the CRD: ${JSON.stringify(created.body)}`);
  }
  const crd = await waitFor("CRD Established", async () => {
    const res = await callApi(cluster.info, "GET", CRD_PATH);
    const body = res.body as unknown as Crd;
    const established = body.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    return established ? body : undefined;
  });
  await waitFor("resource served", async () => {
    const res = await callApi(
      cluster.info,
      "GET",
      "/apis/network.deckhouse.io/v1alpha1/servicewithhealthchecks",
    );
    return res.status === 200;
  });
  return crd;
}
