/**
 * The chart's metrics RBAC on the real API server, decided by the apps' own reviewer (`kubeMetricsAccess` from
 * @swh/kube) running as each app's ServiceAccount with only deploy/manifests' RBAC: the apps may create the
 * TokenReviews and SubjectAccessReviews, and `metrics.readers` is what lets a scraper in. The apps serving
 * /metrics with these decisions are tested end to end in packages/e2e (metrics-auth.int.test.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kubeMetricsAccess } from "@swh/kube";
import { testCluster } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_DIR, helmTemplate, parseYamlDocuments } from "./support/tools.ts";

const NAMESPACE = "swh-system";

let tokens: { reader: string; stranger: string };
let cluster: Awaited<ReturnType<typeof testCluster>>;

beforeAll(async () => {
  cluster = await testCluster();
  const scrapers = await cluster.createNamespace("monitoring");
  const manifests = ["namespace.yaml", "rbac-controller.yaml", "rbac-agent.yaml"].flatMap((file) =>
    parseYamlDocuments(readFileSync(join(DEPLOY_DIR, "manifests", file), "utf8")),
  );
  // The chart's metrics RBAC with one reader configured (the ClusterRoleBinding exists only with readers).
  const metrics = helmTemplate({
    set: [`metrics.readers[0].namespace=${scrapers}`, "metrics.readers[0].name=prometheus"],
  }).filter((o) => o.metadata.name === "swh-metrics-reader");
  expect(metrics.map((o) => o.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding"]);
  await cluster.apply([...manifests, ...metrics]);
  tokens = {
    reader: (await cluster.serviceAccountKubeConfig(scrapers, "prometheus")).token,
    stranger: (await cluster.serviceAccountKubeConfig(scrapers, "stranger")).token,
  };
});

describe.each(["controller", "agent"] as const)(
  "metrics access decided by the %s's ServiceAccount",
  (app) => {
    const access = async () =>
      kubeMetricsAccess((await cluster.serviceAccountKubeConfig(NAMESPACE, `swh-${app}`)).kubeConfig);

    it("allows a ServiceAccount listed in metrics.readers", async () => {
      expect(await (await access()).review(tokens.reader)).toBe("allowed");
    });

    it("denies a ServiceAccount without the metrics-reader ClusterRole", async () => {
      expect(await (await access()).review(tokens.stranger)).toBe("denied");
    });

    it("does not authenticate a made-up token", async () => {
      expect(await (await access()).review("not-a-token")).toBe("unauthenticated");
    });
  },
);

describe("without the chart's review permissions", () => {
  it("fails (403 from the API server) instead of deciding: the app then answers 503, never the metrics", async () => {
    const { kubeConfig } = await cluster.serviceAccountKubeConfig(NAMESPACE, "no-rbac");
    await expect(kubeMetricsAccess(kubeConfig).review(tokens.reader)).rejects.toThrow(/403/);
  });
});
