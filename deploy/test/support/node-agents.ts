/**
 * Agents on nodes, as a real cluster makes them: the shipped manifests (CRD, agent RBAC, agent admission
 * policies), a Node, the agent DaemonSet's Pod bound to it, and the token the kubelet would mount into that Pod
 * (a TokenRequest bound to the Pod). The admission-policy tests use these identities to act as a node's agent.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AuthenticationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  type KubeConfig,
  type V1UserInfo,
} from "@kubernetes/client-node";
import { GROUP, PLURAL, VERSION } from "@swh/crd-types";
import { createNode, kubeConfigForToken, type TestCluster, waitFor } from "@swh/testenv";
import { DEPLOY_DIR, find, parseYamlDocuments, type RenderedObject } from "./tools.ts";

/** Namespace and ServiceAccount of the shipped manifests. */
export const INSTALL_NAMESPACE = "swh-system";
const AGENT_SERVICE_ACCOUNT = "swh-agent";
const AGENT_USER = `system:serviceaccount:${INSTALL_NAMESPACE}:${AGENT_SERVICE_ACCOUNT}`;
const TOKEN_SECONDS = 3600;

/** A file of deploy/manifests, parsed. */
export function manifest(file: string): RenderedObject[] {
  return parseYamlDocuments(readFileSync(join(DEPLOY_DIR, "manifests", file), "utf8"));
}

/**
 * Applies the namespace, the CRD, the agent's RBAC and its admission policies exactly as deploy/manifests ships
 * them, and waits until the CRD is served and the policies are enforced.
 */
export async function installAgentWithPolicy(cluster: TestCluster): Promise<void> {
  for (const file of ["namespace.yaml", "crd.yaml", "rbac-agent.yaml", "admission-agent.yaml"]) {
    await cluster.apply(manifest(file));
  }
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  await waitFor("the SWH resource to be served", async () => {
    await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL });
    return true;
  });
  // The API server loads new policies asynchronously: wait until both deny what any version of them denies, a
  // write (dry run) with a token that names no node.
  const unbound = await unboundAgentKubeConfig(cluster);
  const namespace = INSTALL_NAMESPACE;
  const dryRun = "All";
  await waitFor("the agent admission policies to be enforced", async () => {
    const slice = await outcomeOf(
      unbound.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
        namespace,
        dryRun,
        body: { metadata: { name: "policy-probe" }, addressType: "IPv4", endpoints: [] },
      }),
    );
    const lease = await outcomeOf(
      unbound.makeApiClient(CoordinationV1Api).createNamespacedLease({
        namespace,
        dryRun,
        body: { metadata: { name: "policy-probe" }, spec: {} },
      }),
    );
    return slice.status === 403 && lease.status === 403;
  });
}

/** One node's agent: the Node, its agent Pod and the credentials a compromised node would hold. */
export interface NodeAgent {
  nodeName: string;
  podName: string;
  /** The token the kubelet mounts into the agent Pod: a TokenRequest bound to the Pod. */
  token: string;
  kubeConfig: KubeConfig;
}

/** A node name unique to this test run (Nodes are cluster-scoped and test files share the control plane). */
export function uniqueNodeName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}

/**
 * Creates Node `nodeName` and the agent DaemonSet's Pod on it (from deploy/manifests/agent.yaml, so the
 * namespace's restricted Pod Security level admits it), then requests the Pod's token as the kubelet does.
 */
export async function startNodeAgent(cluster: TestCluster, nodeName: string): Promise<NodeAgent> {
  // A kubelet labels its Node with its host name, which is at most 63 characters even when the node name is not.
  const hostname = (nodeName.split(".")[0] ?? nodeName).slice(0, 63).replace(/-+$/, "");
  await createNode(cluster.kubeConfig, { name: nodeName, labels: { "kubernetes.io/hostname": hostname } });
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const daemonSet = find(manifest("agent.yaml"), "DaemonSet", "swh-agent");
  const template = structuredClone(daemonSet.spec.template);
  const podName = `swh-agent-${randomBytes(4).toString("hex")}`;
  const pod = await core.createNamespacedPod({
    namespace: INSTALL_NAMESPACE,
    body: {
      metadata: { name: podName, labels: template.metadata.labels },
      spec: { ...template.spec, nodeName },
    },
  });
  const uid = pod.metadata?.uid;
  if (uid === undefined) throw new Error(`pod ${podName} has no uid`);
  const token = await requestAgentToken(cluster, { kind: "Pod", apiVersion: "v1", name: podName, uid });
  return { nodeName, podName, token, kubeConfig: kubeConfigForToken(cluster.info, token, AGENT_USER) };
}

/** A token of the agent's ServiceAccount bound to nothing (what a legacy token Secret or `kubectl create token` gives). */
export async function unboundAgentKubeConfig(cluster: TestCluster): Promise<KubeConfig> {
  return kubeConfigForToken(cluster.info, await requestAgentToken(cluster), AGENT_USER);
}

async function requestAgentToken(
  cluster: TestCluster,
  boundObjectRef?: { kind: string; apiVersion: string; name: string; uid: string },
): Promise<string> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: AGENT_SERVICE_ACCOUNT,
    namespace: INSTALL_NAMESPACE,
    body: {
      spec: {
        audiences: [],
        expirationSeconds: TOKEN_SECONDS,
        ...(boundObjectRef ? { boundObjectRef } : {}),
      },
    },
  });
  const token = request.status?.token;
  if (!token) throw new Error("TokenRequest for the agent returned no token");
  return token;
}

/** What the API server authenticates `token` as (a TokenReview made by the admin). */
export async function reviewToken(cluster: TestCluster, token: string): Promise<V1UserInfo> {
  const authn = cluster.kubeConfig.makeApiClient(AuthenticationV1Api);
  const review = await authn.createTokenReview({ body: { spec: { token } } });
  if (!review.status?.authenticated || !review.status.user) {
    throw new Error(`token not authenticated: ${review.status?.error ?? "no error given"}`);
  }
  return review.status.user;
}

/** Status and message of an API call: 2xx with no message, or the error's HTTP status and Status message. */
export async function outcomeOf(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
    return { status: 200, message: "" };
  } catch (error) {
    const e = error as { code?: unknown; body?: unknown };
    if (typeof e.code !== "number") throw error;
    let message = "";
    try {
      message = String(JSON.parse(String(e.body)).message ?? "");
    } catch {
      message = String(e.body);
    }
    return { status: e.code, message };
  }
}
