/**
 * ADR 0020 on the real API server: the agent's ServiceAccount, with exactly the RBAC deploy/manifests ships and the
 * RoleBindings the chart renders for `agent.credentialsNamespaces`, reads credentials Secrets in enabled namespaces
 * only, and a PostgreSQL probe anywhere else fails with `CredentialsNotPermitted` on the slice.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { POSTGRES_CREDENTIALS_SECRET_TYPE, postgresCredentialsSecret } from "@swh/crd-types";
import { httpStatusOf } from "@swh/kube";
import { createNode, createPod, enableCredentialsNamespaces, startPostgres, waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { published, startAgent } from "./support/harness.js";
import { agentSuite } from "./support/suite.js";

const suite = agentSuite(120);

/** The HTTP status the API server answers `request` with (200 when it succeeds). */
async function statusOf(request: Promise<unknown>): Promise<number | undefined> {
  try {
    await request;
    return 200;
  } catch (err) {
    return httpStatusOf(err);
  }
}

describe("credentials Secrets", () => {
  it("are out of the agent token's reach unless an administrator enabled their namespace", async () => {
    const { cluster, admin } = suite;
    const [enabled, unrelated] = [
      await cluster.createNamespace("cred-on"),
      await cluster.createNamespace("cred-off"),
    ];
    await enableCredentialsNamespaces(cluster, [enabled]);
    await admin.core.createNamespacedSecret({
      namespace: unrelated,
      body: { metadata: { name: "opaque" }, type: "Opaque", stringData: { token: "not-for-agents" } },
    });
    const asAgent = suite.agentKubeConfig.makeApiClient(CoreV1Api);
    const selector = `type=${POSTGRES_CREDENTIALS_SECRET_TYPE}`;

    expect(await statusOf(asAgent.readNamespacedSecret({ namespace: unrelated, name: "opaque" }))).toBe(403);
    expect(await statusOf(asAgent.listNamespacedSecret({ namespace: unrelated }))).toBe(403);
    expect(await statusOf(asAgent.listSecretForAllNamespaces())).toBe(403);
    expect(await statusOf(asAgent.listSecretForAllNamespaces({ fieldSelector: selector }))).toBe(403);
    // What the agent does in an enabled namespace (list + watch with the type selector) is allowed there.
    expect(
      await statusOf(asAgent.listNamespacedSecret({ namespace: enabled, fieldSelector: selector })),
    ).toBe(200);
  });

  it("probes PostgreSQL in an enabled namespace, and fails a probe elsewhere with CredentialsNotPermitted", async () => {
    const { cluster, admin } = suite;
    const enabled = await cluster.createNamespace("pg-on");
    const notEnabled = await cluster.createNamespace("pg-off");
    // Listed in the flag, but its RoleBinding was deleted (or never rendered): the API server refuses the list.
    const unbound = await cluster.createNamespace("pg-unbound");
    await enableCredentialsNamespaces(cluster, [enabled]);
    const node = `n-${enabled}`;
    await createNode(cluster.kubeConfig, { name: node, zone: "zone-a" });

    const ips = { [enabled]: "10.244.120.5", [notEnabled]: "10.244.120.6", [unbound]: "10.244.120.7" };
    const pg = await startPostgres({
      host: "10.244.120.5",
      users: [{ name: "probe", password: "probe-pw" }],
    });
    suite.cleanup(() => pg.stop());
    for (const [namespace, ip] of Object.entries(ips)) {
      // The same valid Secret everywhere: only the namespace decides whether the agent may use it.
      await admin.core.createNamespacedSecret({
        namespace,
        body: postgresCredentialsSecret(
          { name: "pg-creds" },
          { user: "probe", password: "probe-pw", tlsMode: "VerifyCA", caCert: pg.caPem },
        ),
      });
      await createPod(cluster.kubeConfig, { name: "db", namespace, node, ips: [ip], labels: { app: "db" } });
      await admin.createSwh(namespace, "db", {
        selector: { app: "db" },
        ports: [{ name: "pg", port: 5432, targetPort: 5432 }],
        healthcheck: {
          initialDelaySeconds: 0,
          // The timeout may not exceed the period.
          periodSeconds: 2,
          probes: [
            {
              mode: "PostgreSQL",
              timeoutSeconds: 2,
              postgreSQL: { targetPort: 5432, dbName: "probe", authSecretName: "pg-creds" },
            },
          ],
        },
      });
    }

    const agent = await startAgent(suite.agentKubeConfig, node, {
      credentialsNamespaces: [enabled, unbound],
    });
    suite.cleanup(() => agent.stop());
    // A refused namespace holds back neither the start nor the readiness of the agent.
    expect(agent.ready()).toBe(true);

    const endpoint = (namespace: string, check: (e: NonNullable<ReturnType<typeof published>>) => boolean) =>
      waitFor(`db in ${namespace}`, async () => {
        const e = published(await admin.slices(namespace), "db", 5432, ips[namespace] ?? "");
        return e && check(e) ? e : undefined;
      });
    expect(await endpoint(enabled, (e) => e.ready)).toMatchObject({ ready: true, serving: true });
    for (const namespace of [notEnabled, unbound]) {
      const e = await endpoint(namespace, (x) => x.reason === "CredentialsNotPermitted");
      expect(e, namespace).toMatchObject({ ready: false, serving: false });
    }
    expect(agent.logs.join("")).not.toContain("probe-pw");
  });
});
