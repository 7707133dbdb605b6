/**
 * What an agent costs the API server (ADR 0025): in a steady state only its watches and its heartbeat, a change to
 * an SWH of other nodes nothing beyond the watch event, and metrics only for the SWHs of its node. The agent runs
 * in-process as its ServiceAccount, through a proxy that records each of its requests.
 */
import { CustomObjectsApi, EventsV1Api } from "@kubernetes/client-node";
import { GROUP, LABEL_MANAGED_SERVICE, MANAGED_SERVICE_SELECTOR, PLURAL, VERSION } from "@swh/crd-types";
import { createNode, createPod, type SeenRequest, waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { metricValue, published } from "./support/harness.js";
import { agentSuite, http, tcp } from "./support/suite.js";

const suite = agentSuite(180);

const query = (r: SeenRequest) => new URL(r.path, "https://x").searchParams;
const isWatch = (r: SeenRequest) => query(r).get("watch") === "true";
const isHeartbeat = (r: SeenRequest) => r.path.includes("/leases/");

/** Waits `ms` to count what happens in a steady window (the one wait here: there is no event to await). */
const steadyFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("agent API load", () => {
  it("makes no request in a steady state but its watches and heartbeat, even while SWHs of other nodes change", async () => {
    const s = await suite.scenario("steady", { proxied: true });
    const proxy = s.proxy;
    if (!proxy) throw new Error("scenario without proxy");
    const ip = `${s.net}.5`;
    await s.backend(ip, 8080);
    await s.pod("web-0", [ip], { app: "web" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "web" },
      ports: [{ name: "tcp", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
    });
    // An SWH whose pods all run on another node.
    const other = `${s.node}-other`;
    await createNode(suite.cluster.kubeConfig, { name: other });
    await createPod(suite.cluster.kubeConfig, {
      name: "far-0",
      namespace: s.namespace,
      node: other,
      ips: [`${s.net}.6`],
      labels: { app: "far" },
    });
    await suite.admin.createSwh(s.namespace, "far", {
      selector: { app: "far" },
      ports: [{ name: "tcp", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
    });
    await s.waitEndpoint("web ready", "web", 8080, ip, (e) => e.ready);
    // The Event of that transition is the agent's last write before the steady state.
    const events = suite.cluster.kubeConfig.makeApiClient(EventsV1Api);
    await waitFor("web's EndpointReady Event", async () =>
      (await events.listNamespacedEvent({ namespace: s.namespace })).items.some(
        (e) => e.reason === "EndpointReady",
      ),
    );

    // 35 s: longer than the harness's informer resync (30 s), which used to re-list every informer.
    const from = Date.now();
    const custom = suite.cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    for (const periodSeconds of [2, 3, 4]) {
      await custom.patchNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: s.namespace,
        name: "far",
        body: [{ op: "replace", path: "/spec/healthcheck/periodSeconds", value: periodSeconds }],
      });
      // What the controller does next: the new spec reaches the agent on the Service (ADR 0032).
      await suite.admin.syncService(s.namespace, "far");
      await steadyFor(5_000);
    }
    await steadyFor(20_000);
    const during = proxy.requests.filter((r) => r.at >= from);
    const others = during.filter((r) => !isWatch(r) && !isHeartbeat(r));
    console.log(
      `steady window ${Math.round((Date.now() - from) / 1000)} s: ${during.length} requests, ` +
        `${during.filter(isWatch).length} watches, ${during.filter(isHeartbeat).length} heartbeat, ${others.length} other`,
    );
    expect(others.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // Not even a re-opened watch: each lasts its 5–10 min however quiet it is.
    expect(during.filter(isWatch).map((r) => r.path)).toEqual([]);
    expect(published(await s.slices(), "web", 8080, ip)).toMatchObject({ ready: true });
    // The Services watch is narrowed to the Services the controller labels.
    const serviceWatches = proxy.requests.filter((r) => isWatch(r) && r.path.startsWith("/api/v1/services"));
    expect(serviceWatches.map((r) => query(r).get("labelSelector"))).toEqual([MANAGED_SERVICE_SELECTOR]);
  });

  it("exports per-SWH series only for SWHs with endpoints on its node, and drops them when the SWH leaves", async () => {
    const s = await suite.scenario("series");
    const ip = `${s.net}.5`;
    await s.backend(ip, 8080);
    await s.pod("web-0", [ip], { app: "web" });
    for (const [name, app] of [
      ["web", "web"],
      ["nothing-here", "absent"],
    ] as const) {
      await suite.admin.createSwh(s.namespace, name, {
        selector: { app },
        ports: [{ name: "tcp", port: 80, targetPort: 8080 }],
        healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
      });
    }
    await s.waitEndpoint("web ready", "web", 8080, ip, (e) => e.ready);
    const series = async () => {
      const metric = await s.agent.registry.getSingleMetric("swh_endpoints")?.get();
      return (metric?.values ?? []).map((v) => `${v.labels.service}/${v.labels.state}=${v.value}`).sort();
    };
    await waitFor("web's series", async () => (await series()).includes("web/ready=1"));
    expect(await series()).toEqual(["web/not_ready=0", "web/ready=1", "web/terminating=0"]);

    await suite.admin.core.deleteNamespacedPod({
      namespace: s.namespace,
      name: "web-0",
      gracePeriodSeconds: 0,
    });
    await waitFor("web's series removed", async () => (await series()).length === 0);
    expect(await metricValue(s.agent.registry, "swh_endpoint_transitions_total")).toBe(0);
  });

  it("keeps publishing for a Service it controls that lost the label, reading that one Service", async () => {
    const s = await suite.scenario("unlabelled", { proxied: true });
    const proxy = s.proxy;
    if (!proxy) throw new Error("scenario without proxy");
    const ip = `${s.net}.5`;
    const backend = await s.backend(ip, 8080);
    await s.pod("web-0", [ip], { app: "web" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    await s.waitEndpoint("web ready", "web", 8080, ip, (e) => e.ready);

    // As a Service created by an older controller, or whose label a tenant removed, looks.
    await suite.admin.core.patchNamespacedService({
      namespace: s.namespace,
      name: "web",
      body: [{ op: "remove", path: `/metadata/labels/${LABEL_MANAGED_SERVICE.replace("/", "~1")}` }],
    });
    await waitFor("the agent to read that Service", () =>
      proxy.requests.some(
        (r) => r.path.startsWith(`/api/v1/namespaces/${s.namespace}/services`) && !isWatch(r),
      ),
    );
    // Still the SWH's endpoints: a failing probe changes the endpoint, the slice stays.
    backend.status.set("/healthz", 503);
    await s.waitEndpoint("web not ready", "web", 8080, ip, (e) => !e.ready);
    expect(await metricValue(s.agent.registry, "swh_endpoints_withheld")).toBe(0);
  });
});
