import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthenticationV1Api, AuthorizationV1Api } from "@kubernetes/client-node";
import { testCluster, waitFor } from "@swh/testenv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEPLOY_DIR, find, helmTemplate, parseYamlDocuments, tool } from "./support/tools.ts";

const NAMESPACE = "swh-system";

interface Identities {
  /** Token of a ServiceAccount bound to the chart's metrics-reader Role through values.metrics.readers. */
  reader: string;
  /** Token of a ServiceAccount with no permission at all. */
  stranger: string;
  /** Kubeconfig of the controller's ServiceAccount: the identity kube-rbac-proxy runs as in the pod. */
  proxyKubeconfigPath: string;
  proxyKubeConfig: Awaited<
    ReturnType<Awaited<ReturnType<typeof testCluster>>["serviceAccountKubeConfig"]>
  >["kubeConfig"];
  /** kube-rbac-proxy's resource attributes per app, from the chart's ConfigMaps. */
  resourceAttributes: { controller: Record<string, string>; agent: Record<string, string> };
}

let ids: Identities;

beforeAll(async () => {
  const cluster = await testCluster();
  const scrapers = await cluster.createNamespace("monitoring");
  const objects = helmTemplate({
    set: [`metrics.readers[0].namespace=${scrapers}`, "metrics.readers[0].name=prometheus"],
  });
  const manifests = ["namespace.yaml", "rbac-controller.yaml", "rbac-agent.yaml"].flatMap((file) =>
    parseYamlDocuments(readFileSync(join(DEPLOY_DIR, "manifests", file), "utf8")),
  );
  // The chart's metrics RBAC with one reader configured (the RoleBinding exists only with readers).
  await cluster.apply([
    ...manifests,
    ...objects.filter((o) => o.metadata.name.startsWith("swh-metrics-") || o.kind === "ConfigMap"),
  ]);
  const attributesOf = (app: string) =>
    parse(find(objects, "ConfigMap", `swh-${app}-kube-rbac-proxy`).data["config.yaml"]).authorization
      .resourceAttributes;
  const proxy = await cluster.serviceAccountKubeConfig(NAMESPACE, "swh-controller");
  ids = {
    reader: (await cluster.serviceAccountKubeConfig(scrapers, "prometheus")).token,
    stranger: (await cluster.serviceAccountKubeConfig(scrapers, "stranger")).token,
    proxyKubeconfigPath: proxy.kubeconfigPath,
    proxyKubeConfig: proxy.kubeConfig,
    resourceAttributes: { controller: attributesOf("controller"), agent: attributesOf("agent") },
  };
});

/** What kube-rbac-proxy does per request, made with the proxy's own ServiceAccount: TokenReview, then SubjectAccessReview. */
async function proxyDecision(
  app: "controller" | "agent",
  token: string,
): Promise<"unauthenticated" | "denied" | "allowed"> {
  const authn = ids.proxyKubeConfig.makeApiClient(AuthenticationV1Api);
  const review = await authn.createTokenReview({ body: { spec: { token } } });
  if (!review.status?.authenticated || !review.status.user?.username) return "unauthenticated";
  const authz = ids.proxyKubeConfig.makeApiClient(AuthorizationV1Api);
  const { apiVersion: version, apiGroup: group, ...attributes } = ids.resourceAttributes[app];
  const access = await authz.createSubjectAccessReview({
    body: {
      spec: {
        user: review.status.user.username,
        groups: review.status.user.groups ?? [],
        resourceAttributes: { ...attributes, group: group ?? "", version: version ?? "", verb: "get" },
      },
    },
  });
  return access.status?.allowed ? "allowed" : "denied";
}

describe.each(["controller", "agent"] as const)(
  "metrics authorization of the %s (what kube-rbac-proxy asks the API server, as the app's ServiceAccount)",
  (app) => {
    it("authorizes a ServiceAccount listed in metrics.readers", async () => {
      expect(await proxyDecision(app, ids.reader)).toBe("allowed");
    });

    it("denies a ServiceAccount without the permission", async () => {
      expect(await proxyDecision(app, ids.stranger)).toBe("denied");
    });

    it("does not authenticate a made-up token", async () => {
      expect(await proxyDecision(app, "not-a-token")).toBe("unauthenticated");
    });
  },
);

// The real proxy in front of a real /metrics endpoint. The Go module proxy reachable here refuses
// github.com/brancz/kube-rbac-proxy (403), so this runs only where deploy/scripts/build-tools.sh could build it.
const kubeRbacProxy = tool("kube-rbac-proxy");

describe.skipIf(kubeRbacProxy === undefined)("kube-rbac-proxy in front of a metrics endpoint", () => {
  let upstream: Server;
  let proxy: ChildProcess;
  let proxyPort: number;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      res.writeHead(req.url === "/metrics" ? 200 : 404, { "content-type": "text/plain; version=0.0.4" });
      res.end(req.url === "/metrics" ? "# TYPE swh_leader gauge\nswh_leader 1\n" : "");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), "swh-krp-"));
    writeFileSync(
      join(dir, "config.yaml"),
      `authorization:\n  resourceAttributes: ${JSON.stringify(ids.resourceAttributes.controller)}\n`,
    );
    proxyPort = 20000 + Math.floor(Math.random() * 20000);
    proxy = spawn(
      kubeRbacProxy as string,
      [
        `--secure-listen-address=127.0.0.1:${proxyPort}`,
        `--upstream=http://127.0.0.1:${upstreamPort}/`,
        "--allow-paths=/metrics",
        `--config-file=${join(dir, "config.yaml")}`,
        `--kubeconfig=${ids.proxyKubeconfigPath}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    await waitFor("kube-rbac-proxy to listen", async () => (await get()).status === 401);
  });

  afterAll(async () => {
    proxy?.kill("SIGTERM");
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  });

  function get(token?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: proxyPort,
          path: "/metrics",
          rejectUnauthorized: false, // the proxy's self-signed serving certificate
          headers: token ? { authorization: `Bearer ${token}` } : {},
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", () => resolve({ status: 0, body: "" }));
      req.end();
    });
  }

  it("answers 401 without a token", async () => {
    expect((await get()).status).toBe(401);
  });

  it("answers 403 to a ServiceAccount without the permission", async () => {
    expect((await get(ids.stranger)).status).toBe(403);
  });

  it("serves the metrics to an authorized ServiceAccount", async () => {
    const response = await get(ids.reader);
    expect(response.status).toBe(200);
    expect(response.body).toContain("swh_leader 1");
  });
});
