/**
 * The demo's topology-hints part (ADR 0035): SWH "web-near" balances the same web servers as "web" with
 * `trafficDistribution: PreferClose`. The agents give each endpoint its zone's hint, so kube-proxy (on node A, in
 * zone A) sends the client only to the pod in its zone; when that pod's check fails, traffic falls back to the
 * other zone, and comes back when it recovers. Each step waits for kube-proxy's rules, then counts real requests.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { serviceWithHealthchecks } from "@swh/crd-types";
import { type KubeProxy, type TestCluster, waitFor } from "@swh/testenv";
import { type MailPod, mailBalancers } from "./mail-world.js";
import { countHttp, formatCount } from "./traffic.js";

/** Plays the part, printing with `say`; true when every step routed and counted as expected. */
export async function showTopologyHints(
  cluster: TestCluster,
  proxy: KubeProxy,
  namespace: string,
  pods: readonly MailPod[],
  opts: { requests: number; say: (text: string) => void },
): Promise<boolean> {
  const [near, far] = pods as [MailPod, MailPod];
  const web = mailBalancers(namespace)[0];
  if (web === undefined) throw new Error("the example has no web balancer");
  await cluster.apply(
    [
      serviceWithHealthchecks(
        { name: "web-near", namespace },
        { ...web.spec, trafficDistribution: "PreferClose" },
      ),
    ],
    { namespace },
  );
  const clusterIP = await waitFor("Service web-near has a ClusterIP", async () => {
    const service = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedService({ name: "web-near", namespace });
    return service.spec?.clusterIP;
  });
  const routedTo = (to: MailPod) =>
    waitFor(`kube-proxy routes web-near to ${to.name} only`, async () => {
      const routed = proxy.routedEndpoints({ namespace, name: "web-near", port: "http" });
      return routed.join(" ") === `${to.web.address}:${to.web.port}` || undefined;
    });
  const step = async (title: string, to: MailPod) => {
    opts.say(`\n== ${title}`);
    await routedTo(to);
    const count = await countHttp(clusterIP, 80, opts.requests);
    opts.say(`web-near (${clusterIP}:80): ${formatCount(count)}`);
    return count.failed === 0 && count.byPod[to.name] === opts.requests;
  };
  const steps = [
    await step(
      `SWH web-near (trafficDistribution: PreferClose), client in ${proxy.node}'s zone: stays in its zone`,
      near,
    ),
  ];
  await near.web.setHealthy(false);
  steps.push(await step(`${near.name}'s web server fails: traffic falls back to the other zone`, far));
  await near.web.setHealthy(true);
  steps.push(await step(`${near.name} recovers: traffic is back in the client's zone`, near));
  return steps.every(Boolean);
}
