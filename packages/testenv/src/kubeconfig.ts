import { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";

/** Where a kubeconfig points: the apiserver URL and the CA that signed its serving certificate. */
export interface ClusterEndpoint {
  server: string;
  caPem: string;
}

/** A `KubeConfig` that talks to `endpoint` with a bearer `token` as user `userName`. */
export function kubeConfigForToken(endpoint: ClusterEndpoint, token: string, userName = "admin"): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(endpoint, token, userName));
  return kc;
}

/** The kubeconfig file text (YAML) for `endpoint` with a bearer `token` as user `userName`. */
export function kubeconfigYaml(endpoint: ClusterEndpoint, token: string, userName = "admin"): string {
  const cluster = "swh-test";
  const context = `${userName}@${cluster}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: cluster,
        cluster: {
          server: endpoint.server,
          "certificate-authority-data": Buffer.from(endpoint.caPem).toString("base64"),
        },
      },
    ],
    users: [{ name: userName, user: { token } }],
    contexts: [{ name: context, context: { cluster, user: userName } }],
    "current-context": context,
  });
}
