/**
 * `kubectl get pods -A -o wide`, short: what the real-node demo and suite print to show the product's own pods
 * running on the kubelet.
 */
import { CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";

const HEADER = ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "IP", "NODE"];

/** Every pod of the cluster, one aligned row each, sorted by namespace and name. */
export async function podTable(kubeConfig: KubeConfig): Promise<string> {
  const pods = await kubeConfig.makeApiClient(CoreV1Api).listPodForAllNamespaces();
  const rows = pods.items.map(podRow).sort((a, b) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`));
  const table = [HEADER, ...rows];
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length)));
  return table
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function podRow(pod: V1Pod): string[] {
  const statuses = pod.status?.containerStatuses ?? [];
  const waiting = statuses.find((s) => s.state?.waiting)?.state?.waiting?.reason;
  const status = pod.metadata?.deletionTimestamp ? "Terminating" : (waiting ?? pod.status?.phase ?? "?");
  return [
    pod.metadata?.namespace ?? "",
    pod.metadata?.name ?? "",
    `${statuses.filter((s) => s.ready).length}/${pod.spec?.containers.length ?? 0}`,
    status,
    String(statuses.reduce((n, s) => n + s.restartCount, 0)),
    pod.status?.podIP ?? "<none>",
    pod.spec?.nodeName ?? "<none>",
  ];
}
