/**
 * What the agent's slices look like and how they survive interference: dual-stack families probed per address,
 * headless labels, a deleted slice put back; plus the ops endpoints. Same setup as agent.int.test.ts.
 */
import { LABEL_ADDRESS_FAMILY, LABEL_HEADLESS, LABEL_SERVICE_NAME } from "@swh/crd-types";
import { httpsGet, waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { published } from "./support/harness.js";
import { agentSuite, http, tcp } from "./support/suite.js";

const suite = agentSuite(60);
const scenario = (prefix: string) => suite.scenario(prefix);

describe("agent slices", () => {
  it("publishes one slice family per IP family and probes each address on its own", async () => {
    const s = await scenario("dual");
    const v4 = `${s.net}.5`;
    const v6 = `fd00:10:244::${s.net.split(".")[2]}:5`;
    await s.backend(v4, 8080);
    const b6 = await s.backend(v6, 8080);
    b6.status.set("/healthz", 503);
    await s.pod("p", [v4, v6], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ipFamilyPolicy: "PreferDualStack",
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    const e4 = await s.waitEndpoint("IPv4 ready", "web", 8080, v4, (e) => e.ready);
    const e6 = await s.waitEndpoint("IPv6 failing", "web", 8080, v6, (e) => e.reason === "HTTPStatus");
    expect(e6.ready).toBe(false);
    const families = (await s.slices()).map((x) => [
      x.metadata?.name,
      x.addressType,
      x.metadata?.labels?.[LABEL_ADDRESS_FAMILY],
    ]);
    expect(families).toEqual(
      expect.arrayContaining([
        [e4.slice, "IPv4", "IPv4"],
        [e6.slice, "IPv6", "IPv6"],
      ]),
    );
  });

  it("labels the slices of a headless SWH as headless", async () => {
    const s = await scenario("headless");
    const ip = `${s.net}.5`;
    await s.backend(ip, 8080);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "db", {
      selector: { app: "x" },
      clusterIP: "None",
      ports: [{ name: "tcp", port: 8080, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
    });
    const e = await s.waitEndpoint("ready", "db", 8080, ip, (x) => x.ready);
    const slice = (await s.slices()).find((x) => x.metadata?.name === e.slice);
    expect(slice?.metadata?.labels?.[LABEL_HEADLESS]).toBe("");
  });

  it("puts back a slice somebody deleted, with the state it had", async () => {
    const s = await scenario("deleted");
    const ip = `${s.net}.5`;
    const b = await s.backend(ip, 8080);
    b.status.set("/healthz", 500);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    const before = await s.waitEndpoint("failing", "web", 8080, ip, (x) => x.reason === "HTTPStatus");
    const original = (await s.slices()).find((x) => x.metadata?.name === before.slice);
    await suite.admin.discovery.deleteNamespacedEndpointSlice({ namespace: s.namespace, name: before.slice });
    const back = await waitFor("the slice to be re-created", async () => {
      const slice = (await s.slices()).find((x) => x.metadata?.name === before.slice);
      return slice && slice.metadata?.uid !== original?.metadata?.uid ? slice : undefined;
    });
    expect(published([back], "web", 8080, ip)).toMatchObject({ ready: false, reason: "HTTPStatus" });
    expect(back.metadata?.labels?.[LABEL_SERVICE_NAME]).toBe("web");
  });

  it("serves the documented metrics over HTTPS to an authorised token, and only /metrics on that port", async () => {
    const s = await scenario("ops");
    const ip = `${s.net}.5`;
    await s.backend(ip, 8080);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
    });
    await s.waitEndpoint("ready", "web", 8080, ip, (e) => e.ready);
    const port = s.agent.ports.metrics ?? 0;
    // The agent reviews the token as its own ServiceAccount (deploy/manifests RBAC); the admin may get /metrics.
    const token = suite.cluster.kubeConfig.getCurrentUser()?.token;
    expect((await httpsGet(port, "/metrics")).status).toBe(401);
    expect((await httpsGet(port, "/healthz", { token })).status).toBe(404);
    const scraped = await httpsGet(port, "/metrics", { token });
    expect(scraped.status).toBe(200);
    const text = scraped.body;
    expect(text).toContain('swh_probe_results_total{mode="tcp",result="success"}');
    expect(text).toContain(`swh_endpoints{namespace="${s.namespace}",service="web",state="ready"} 1`);
    expect(text).toMatch(/swh_slice_writes_total\{action="create",result="success"\} [1-9]/);
    expect(text).toContain("swh_probe_duration_seconds_bucket");
    expect(text).toContain("swh_probe_targets 1");
    expect(text).toContain('swh_build_info{component="agent"');
    await s.agent.stop();
    expect(s.agent.ready()).toBe(false);
  });
});
