import { readFileSync } from "node:fs";
import { CoreV1Api, CustomObjectsApi, Watch } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { controlPlanePids, testCluster, waitFor } from "../src/index.ts";

const CRD_AND_INSTANCE = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.testenv.swh.invalid
spec:
  group: testenv.swh.invalid
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations: [{ rule: "self.size <= 10", message: "size must be at most 10" }]
              properties:
                size: { type: integer }
                color: { type: string, default: blue }
---
apiVersion: testenv.swh.invalid/v1
kind: Widget
metadata: { name: small }
spec: { size: 3 }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings }
data: { mode: fast }
`;

describe("apply", () => {
  it("applies a CRD and an instance of it plus a ConfigMap from one multi-document YAML", async () => {
    const cluster = await testCluster();
    const ns = await cluster.createNamespace("apply");
    await cluster.apply(CRD_AND_INSTANCE, { namespace: ns });
    const widget = (await cluster.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: "testenv.swh.invalid",
      version: "v1",
      namespace: ns,
      plural: "widgets",
      name: "small",
    })) as { spec?: { size?: number; color?: string } };
    expect(widget.spec?.size).toBe(3);
    // The CRD kept its schema extensions: the server defaulted `color` and enforces the CEL rule.
    expect(widget.spec?.color).toBe("blue");
    await expect(
      cluster.apply(
        [
          {
            apiVersion: "testenv.swh.invalid/v1",
            kind: "Widget",
            metadata: { name: "big" },
            spec: { size: 11 },
          },
        ],
        { namespace: ns },
      ),
    ).rejects.toThrow(/size must be at most 10/);
    const cm = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: "settings", namespace: ns });
    expect(cm.data).toEqual({ mode: "fast" });

    // Applying again with a change updates in place (server-side apply, same field manager).
    await cluster.apply(
      [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { mode: "slow" } }],
      {
        namespace: ns,
      },
    );
    const updated = await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: "settings", namespace: ns });
    expect(updated.data).toEqual({ mode: "slow" });
  });
});

describe("restartApiServer", () => {
  it("breaks an open watch, and the same port and data serve again afterwards", async () => {
    const cluster = await testCluster();
    const ns = await cluster.createNamespace("restart");
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "before" } } });

    let watchEnded: unknown = "open";
    const watch = new Watch(cluster.kubeConfig);
    await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      {},
      () => {},
      (err) => {
        watchEnded = err ?? "closed";
      },
    );

    await cluster.restartApiServer();

    await waitFor("the open watch to end", () => watchEnded !== "open");
    const names = (await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name);
    expect(names).toEqual(["before"]);
  });

  it("runs whileDown while the server is down, and starts it again even when whileDown throws", async () => {
    const cluster = await testCluster();
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    let answeredWhileDown: boolean | undefined;
    await expect(
      cluster.restartApiServer({
        whileDown: async () => {
          answeredWhileDown = await core.listNamespace().then(
            () => true,
            () => false,
          );
          throw new Error("thrown by whileDown");
        },
      }),
    ).rejects.toThrow("thrown by whileDown");
    expect(answeredWhileDown).toBe(false);
    expect((await core.listNamespace()).items.length).toBeGreaterThan(0);
  });

  it("controlPlanePids names the running processes, and the new API server after a restart", async () => {
    const cluster = await testCluster();
    const before = controlPlanePids(cluster.info);
    expect(command(before.etcd)).toBe("etcd");
    expect(command(before.apiServer)).toBe("kube-apiserver");
    expect(command(before.controllerManager)).toBe("kube-controller");

    await cluster.restartApiServer();

    const after = controlPlanePids(cluster.info);
    expect(after.apiServer).not.toBe(before.apiServer);
    expect(command(after.apiServer)).toBe("kube-apiserver");
    expect(after.etcd).toBe(before.etcd);
  });

  it("controlPlanePids follows kube-controller-manager when its supervisor starts it again", async () => {
    const cluster = await testCluster();
    const before = controlPlanePids(cluster.info).controllerManager;
    expect(command(before)).toBe("kube-controller");
    process.kill(before as number, "SIGKILL");
    let after: number | undefined;
    await waitFor("kube-controller-manager started again and recorded", () => {
      after = controlPlanePids(cluster.info).controllerManager;
      return after !== undefined && after !== before;
    });
    expect(command(after)).toBe("kube-controller");
  });
});

/** The process name of `pid`: /proc/<pid>/comm holds the first 15 bytes of the executable's name. */
function command(pid: number | undefined): string {
  return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
}
