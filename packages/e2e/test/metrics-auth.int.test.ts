/**
 * Metrics authorised in the apps (issue 17, ADR 0017) on the real API server: the controller and the agent run as
 * processes from their bundles under their own ServiceAccounts with the chart's RBAC (deploy/manifests), and
 * decide every scrape with TokenReview + SubjectAccessReview. Scrapers are ServiceAccounts with real tokens: one
 * bound to the chart's metrics-reader ClusterRole, one without it.
 */
import { X509Certificate } from "node:crypto";
import {
  createNode,
  httpsGet,
  makeCa,
  SecretVolume,
  type TestCluster,
  testCluster,
  waitFor,
} from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppProcess, INSTALL_NAMESPACE, installProduct, METRICS_READER, Product } from "../src/index.js";

let cluster: TestCluster;
let product: Product;
let apps: Record<"controller" | "agent", AppProcess>;
let tokens: { reader: string; stranger: string };
const volumes: SecretVolume[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  await installProduct(cluster);
  await createNode(cluster.kubeConfig, { name: "metrics-a", zone: "zone-a" });
  product = new Product(cluster);
  apps = { controller: await product.startController(), agent: await product.startAgent("metrics-a") };
  const scrapers = await cluster.createNamespace("scrapers");
  tokens = {
    reader: (await cluster.serviceAccountKubeConfig(INSTALL_NAMESPACE, METRICS_READER)).token,
    stranger: (await cluster.serviceAccountKubeConfig(scrapers, "stranger")).token,
  };
});

afterAll(async () => {
  await product?.stop();
  for (const volume of volumes) volume.remove();
});

describe.each(["controller", "agent"] as const)("the %s's /metrics", (name) => {
  it("answers 401 without a token", async () => {
    const answer = await httpsGet(apps[name].metricsPort, "/metrics");
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("swh_");
  });

  it("answers 401 to a token the API server does not know", async () => {
    expect((await httpsGet(apps[name].metricsPort, "/metrics", { token: "made-up" })).status).toBe(401);
  });

  it("answers 403 to a ServiceAccount without the metrics-reader ClusterRole", async () => {
    const answer = await httpsGet(apps[name].metricsPort, "/metrics", { token: tokens.stranger });
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain("swh_");
  });

  it("serves the swh_ series to the metrics-reader ServiceAccount", async () => {
    const answer = await httpsGet(apps[name].metricsPort, "/metrics", { token: tokens.reader });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(`swh_build_info{component="${name}"`);
    expect(answer.body).toMatch(/^swh_watch_restarts_total|^# TYPE swh_watch_restarts_total counter$/m);
  });

  it("serves no metrics on the health port: 404 for /metrics, with or without a token", async () => {
    for (const token of [undefined, tokens.reader]) {
      const res = await fetch(`http://127.0.0.1:${apps[name].healthPort}/metrics`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("swh_");
    }
    expect((await fetch(`http://127.0.0.1:${apps[name].healthPort}/readyz`)).status).toBe(200);
  });
});

describe("a configured metrics certificate", () => {
  it.each(["controller", "agent"] as const)(
    "is served by the %s and replaced by a rotated one without a restart",
    async (name) => {
      const ca = makeCa(`swh-e2e-${name}-metrics-ca`);
      const first = ca.issue({ commonName: "localhost" });
      const volume = new SecretVolume(first);
      volumes.push(volume);
      const flags = [
        `--metrics-tls-cert-file=${volume.files.certFile}`,
        `--metrics-tls-private-key-file=${volume.files.keyFile}`,
      ];
      if (name === "agent") await createNode(cluster.kubeConfig, { name: "metrics-b", zone: "zone-a" });
      const app =
        name === "controller"
          ? await product.startController(flags)
          : await product.startAgent("metrics-b", flags);
      const scrape = () => httpsGet(app.metricsPort, "/metrics", { token: tokens.reader, ca: ca.certPem });

      const before = await scrape();
      expect(before.status).toBe(200);
      expect(before.fingerprint).toBe(new X509Certificate(first.certPem).fingerprint256);

      const second = ca.issue({ commonName: "localhost" });
      volume.write(second);
      const after = await waitFor(`${name} to serve the rotated certificate`, async () => {
        const answer = await scrape();
        return answer.fingerprint === new X509Certificate(second.certPem).fingerprint256 ? answer : undefined;
      });
      expect(after.status).toBe(200);
      expect(after.body).toContain(`swh_build_info{component="${name}"`);
      expect(app.pid).toBeGreaterThan(0);
      await app.stop();
    },
  );
});
