import { type RequestOptions, request } from "node:https";
import { type KubeConfig, type KubernetesObject, KubernetesObjectApi } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { waitFor } from "./wait-for.js";

/** Field manager of everything `apply` writes. */
const APPLY_FIELD_MANAGER = "swh-testenv";

/**
 * Server-side applies `manifests` (a multi-document YAML/JSON string, or objects; `kind: List` is
 * flattened) in order, forcing ownership. Namespaced objects without a namespace go to
 * `opts.namespace` (else "default"). Waits for a kind to appear in discovery (a CRD applied just
 * before) and for an applied CRD to be Established, so CRD + instances can go in one call.
 */
export async function applyManifests(
  kc: KubeConfig,
  manifests: string | object[],
  opts: { namespace?: string } = {},
): Promise<void> {
  const client = kc.makeApiClient(DiscoveringObjectApi);
  for (const [index, raw] of parseManifests(manifests).entries()) {
    const obj = structuredClone(raw);
    const where = `apply: document ${index} (${obj.kind ?? "?"} ${obj.metadata?.name ?? "?"})`;
    if (!obj.apiVersion) throw new Error(`${where}: apiVersion is required`);
    if (!obj.kind) throw new Error(`${where}: kind is required`);
    if (!obj.metadata?.name) throw new Error(`${where}: metadata.name is required`);
    const { apiVersion, kind } = obj;
    const resource = await waitFor(
      `${apiVersion} ${kind} to be served (discovery)`,
      () => client.lookup(apiVersion, kind),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    if (resource.namespaced) obj.metadata.namespace ??= opts.namespace ?? "default";
    else delete obj.metadata.namespace;
    try {
      await serverSideApply(kc, resourcePath(apiVersion, resource.name, obj.metadata), obj);
    } catch (error) {
      throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    if (kind === "CustomResourceDefinition") await waitForEstablished(client, obj);
  }
}

/**
 * Sends the object as raw JSON. The typed client would run it through its model serializer, which silently
 * drops fields it does not know by their JSON names (e.g. `x-kubernetes-validations` and `default` in a CRD's
 * schema), so a CRD applied that way loses its validation and defaulting.
 */
async function serverSideApply(kc: KubeConfig, path: string, obj: KubernetesObject): Promise<void> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error("apply: the kubeconfig has no current cluster");
  const options: RequestOptions = {
    method: "PATCH",
    headers: { "content-type": "application/apply-patch+yaml", accept: "application/json" },
  };
  await kc.applyToHTTPSOptions(options);
  const url = `${server}${path}?fieldManager=${APPLY_FIELD_MANAGER}&force=true`;
  await new Promise<void>((resolve, reject) => {
    const req = request(url, options, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        if ((res.statusCode ?? 0) < 300) resolve();
        else {
          const message = (JSON.parse(body || "{}") as { message?: string }).message ?? body;
          reject(new Error(`HTTP ${res.statusCode}: ${message}`));
        }
      });
    });
    req.on("error", reject);
    req.end(JSON.stringify(obj));
  });
}

/** REST path of one object: `/api/v1/...` for the core group, `/apis/<group>/<version>/...` otherwise. */
function resourcePath(apiVersion: string, plural: string, meta: KubernetesObject["metadata"]): string {
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = meta?.namespace ? `/namespaces/${encodeURIComponent(meta.namespace)}` : "";
  return `${base}${ns}/${plural}/${encodeURIComponent(meta?.name ?? "")}`;
}

/** KubernetesObjectApi with its (cached, re-fetched on miss) discovery lookup made callable. */
class DiscoveringObjectApi extends KubernetesObjectApi {
  lookup(apiVersion: string, kind: string) {
    return this.resource(apiVersion, kind);
  }
}

/** The objects in `manifests`, in order, skipping empty YAML documents and flattening `kind: List`. */
export function parseManifests(manifests: string | object[]): KubernetesObject[] {
  const docs: unknown[] =
    typeof manifests === "string"
      ? parseAllDocuments(manifests).map((doc, i) => {
          if (doc.errors.length > 0) throw new Error(`apply: YAML document ${i}: ${doc.errors[0]?.message}`);
          return doc.toJS() as unknown;
        })
      : manifests;
  const out: KubernetesObject[] = [];
  for (const [i, doc] of docs.entries()) {
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== "object" || Array.isArray(doc))
      throw new Error(`apply: document ${i} is not an object`);
    const obj = doc as KubernetesObject & { items?: unknown[] };
    if (obj.kind === "List" && Array.isArray(obj.items)) out.push(...parseManifests(obj.items as object[]));
    else out.push(obj);
  }
  return out;
}

async function waitForEstablished(client: KubernetesObjectApi, crd: KubernetesObject): Promise<void> {
  await waitFor(`CRD ${crd.metadata?.name} to be Established`, async () => {
    const current = (await client.read({
      apiVersion: crd.apiVersion ?? "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: crd.metadata?.name ?? "" },
    })) as KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };
    return current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
  });
}
